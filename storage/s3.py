"""Objects in an S3 bucket (or an S3-compatible service), under an optional key prefix.

Create-only writes are conditional PUTs (`If-None-Match: *`): S3 refuses to write over an
existing key with 412 PreconditionFailed, so an object, once written, is never replaced — not
even by a concurrent writer of the same key. A 409 ConditionalRequestConflict means another
conditional write of that key was in flight; S3 asks for a retry, which then either writes or
gets 412.

Files go up in one PUT up to `multipart_threshold` (64 MiB), the file handle streamed as the
body. Larger files use a multipart upload whose CompleteMultipartUpload carries
`If-None-Match: *`: S3 supports the condition there, while boto3's managed transfer
(`upload_fileobj`) does not accept `IfNoneMatch` (s3transfer 0.x's ALLOWED_UPLOAD_ARGS), so it
cannot be used for create-only writes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import BinaryIO

from botocore.exceptions import ClientError

from storage.objects import ObjectMissing, ObjectStore, check_key, write_atomically

SINGLE_PUT_LIMIT = 64 << 20
PART_SIZE = 64 << 20
MIN_PART_SIZE = 5 << 20  # S3's minimum for every part but the last
_CONFLICT_RETRIES = 8
_CHUNK = 1 << 20


def _error(exc: ClientError) -> tuple[str, int]:
    return (str(exc.response.get("Error", {}).get("Code", "")),
            int(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0))


def _already_there(exc: ClientError) -> bool:
    code, status = _error(exc)
    return code == "PreconditionFailed" or status == 412


def _conflict(exc: ClientError) -> bool:
    code, status = _error(exc)
    return code == "ConditionalRequestConflict" or status == 409


def _missing(exc: ClientError) -> bool:
    """No such key (GetObject: NoSuchKey; HeadObject: a bare 404). NoSuchBucket is not a
    missing object but a misconfiguration, and is raised as it is."""
    code, _ = _error(exc)
    return code in ("NoSuchKey", "404", "NotFound")


class S3Objects(ObjectStore):
    """`s3://<bucket>/<prefix>/<key>`."""

    def __init__(self, bucket: str, prefix: str = "", client=None, *,
                 multipart_threshold: int = SINGLE_PUT_LIMIT, part_size: int = PART_SIZE):
        if not bucket:
            raise ValueError("S3Objects needs a bucket name")
        if client is None:
            import boto3
            client = boto3.client("s3")
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        if self.prefix:
            check_key(self.prefix)
        self.client = client
        self.multipart_threshold = multipart_threshold
        self.part_size = max(part_size, MIN_PART_SIZE)

    def _key(self, key: str) -> str:
        check_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _missing_error(self, key: str) -> ObjectMissing:
        return ObjectMissing(f"no object {key!r} at {self.location(key)}")

    # -- create-only writes ---------------------------------------------------------------

    def _conditional(self, key: str, attempt) -> bool:
        """Run a conditional write; False when the key is taken. Retries on 409 (a concurrent
        conditional write of the same key) until S3 answers 200 or 412."""
        for n in range(_CONFLICT_RETRIES):
            try:
                attempt()
                return True
            except ClientError as exc:
                if _already_there(exc):
                    return False
                if not _conflict(exc) or n == _CONFLICT_RETRIES - 1:
                    raise
            time.sleep(min(0.05 * 2 ** n, 2.0))
        raise AssertionError("unreachable")

    def put_if_absent(self, key: str, data: bytes) -> bool:
        full = self._key(key)
        return self._conditional(key, lambda: self.client.put_object(
            Bucket=self.bucket, Key=full, Body=data, IfNoneMatch="*"))

    def put_file_if_absent(self, key: str, path: Path) -> bool:
        full = self._key(key)
        if self.exists(key):  # a HEAD saves uploading a large file that is already there
            return False
        size = os.path.getsize(path)
        if size <= self.multipart_threshold:
            def single():
                with open(path, "rb") as body:
                    self.client.put_object(Bucket=self.bucket, Key=full, Body=body,
                                           IfNoneMatch="*")
            return self._conditional(key, single)
        return self._multipart(key, full, Path(path))

    def _multipart(self, key: str, full: str, path: Path) -> bool:
        upload = self.client.create_multipart_upload(Bucket=self.bucket, Key=full)["UploadId"]
        try:
            parts = []
            with open(path, "rb") as src:
                number = 1
                while chunk := src.read(self.part_size):
                    etag = self.client.upload_part(Bucket=self.bucket, Key=full, UploadId=upload,
                                                   PartNumber=number, Body=chunk)["ETag"]
                    parts.append({"ETag": etag, "PartNumber": number})
                    number += 1
            wrote = self._conditional(key, lambda: self.client.complete_multipart_upload(
                Bucket=self.bucket, Key=full, UploadId=upload, IfNoneMatch="*",
                MultipartUpload={"Parts": parts}))
        except BaseException:
            self._abort(full, upload)
            raise
        if not wrote:
            self._abort(full, upload)
        return wrote

    def _abort(self, full: str, upload: str) -> None:
        try:
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=full, UploadId=upload)
        except ClientError:
            pass  # already completed or gone; a lifecycle rule reaps anything left

    # -- the rest ---------------------------------------------------------------------------

    def replace(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self._key(key), Body=data)

    def _get_object(self, key: str) -> dict:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if _missing(exc):
                raise self._missing_error(key) from None
            raise

    def get(self, key: str) -> bytes:
        return self._get_object(key)["Body"].read()

    def download(self, key: str, dest: Path) -> Path:
        body = self._get_object(key)["Body"]

        def copy(out: BinaryIO) -> None:
            for chunk in body.iter_chunks(_CHUNK):
                out.write(chunk)

        return write_atomically(Path(dest), copy)

    def exists(self, key: str) -> bool:
        try:
            self.client.head_object(Bucket=self.bucket, Key=self._key(key))
        except ClientError as exc:
            if _missing(exc):
                return False
            raise
        return True

    def list(self, prefix: str) -> list[str]:
        folder = prefix.strip("/")
        if folder:
            check_key(folder)
        # A folder, as on the filesystem: 'a/b' lists a/b/..., never a/bc.
        full = "/".join(p for p in (self.prefix, folder) if p)
        full = f"{full}/" if full else ""
        skip = len(self.prefix) + 1 if self.prefix else 0
        keys: list[str] = []
        for page in self.client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=full):
            keys.extend(item["Key"][skip:] for item in page.get("Contents", ()))
        return sorted(keys)

    def delete(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self._key(key))

    def location(self, key: str) -> str:
        return f"s3://{self.bucket}/{self._key(key)}"

    def local_path(self, key: str) -> Path | None:
        return None


def s3_client_from_env():
    """A boto3 S3 client: endpoint from `ARKEVO_S3_ENDPOINT_URL`, else boto3's own
    (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the AWS config file), else AWS; credentials from
    the standard AWS chain; region from `AWS_REGION`/`AWS_DEFAULT_REGION`/the config file, else
    us-east-1."""
    import boto3
    from botocore.config import Config

    session = boto3.session.Session()
    region = os.environ.get("AWS_REGION") or session.region_name or "us-east-1"
    endpoint = os.environ.get("ARKEVO_S3_ENDPOINT_URL") or None
    return session.client("s3", region_name=region, endpoint_url=endpoint,
                          config=Config(retries={"mode": "standard"}, max_pool_connections=32))
