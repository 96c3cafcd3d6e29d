"""`python -m deploy.object_store_setup`: the one-shot job that readies the shared bucket.

It creates the bucket named by `ARKEVO_STORE` / `ARKEVO_OBJECTS` (s3://bucket/prefix) when it is
absent, then proves that the service honours the create-only writes the store relies on (a
second `If-None-Match: *` PUT of the same key must be refused): a service that silently
overwrites would let two workers replace each other's records. Exit 0 ready, 1 not.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid

from botocore.exceptions import BotoCoreError, ClientError

from storage.s3 import S3Objects, s3_client_from_env
from storage.uri import filesystem_root


def buckets_from_env() -> dict[str, str]:
    """bucket -> the prefix the probe writes under, from ARKEVO_STORE and ARKEVO_OBJECTS."""
    found: dict[str, str] = {}
    for variable in ("ARKEVO_STORE", "ARKEVO_OBJECTS"):
        value = os.environ.get(variable, "")
        if not value or filesystem_root(value) is not None:
            continue
        if not value.startswith("s3://") or not value[5:].split("/", 1)[0]:
            raise SystemExit(f"object-store-setup: {variable}={value!r} is not s3://bucket[/prefix]")
        bucket, _, prefix = value[5:].partition("/")
        found.setdefault(bucket, prefix)
    return found


def ensure_bucket(client, bucket: str) -> bool:
    """True when this call created it."""
    try:
        client.head_bucket(Bucket=bucket)
        return False
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") not in ("404", "NoSuchBucket", "NotFound"):
            raise
    try:
        client.create_bucket(Bucket=bucket)
    except ClientError as exc:  # another setup job won the race
        if exc.response.get("Error", {}).get("Code") not in ("BucketAlreadyOwnedByYou",
                                                             "BucketAlreadyExists"):
            raise
        return False
    return True


def probe_create_only(client, bucket: str, prefix: str) -> None:
    objects = S3Objects(bucket, prefix, client)
    key = f"tmp/setup-probe-{uuid.uuid4().hex}"
    try:
        if not objects.put_if_absent(key, b"first"):
            raise SystemExit(f"object-store-setup: s3://{bucket}/{prefix} refused a fresh key")
        if objects.put_if_absent(key, b"second") or objects.get(key) != b"first":
            raise SystemExit(f"object-store-setup: s3://{bucket} overwrote a create-only write: "
                             "the service does not honour If-None-Match: * (docs/operations.md)")
    finally:
        objects.delete(key)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(prog="python -m deploy.object_store_setup", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    buckets = buckets_from_env()
    if not buckets:
        print("object-store-setup: ARKEVO_STORE and ARKEVO_OBJECTS name no s3:// bucket; nothing to do")
        return 0
    client = s3_client_from_env()
    try:
        for bucket, prefix in sorted(buckets.items()):
            created = ensure_bucket(client, bucket)
            probe_create_only(client, bucket, prefix)
            print(f"object-store-setup: s3://{bucket} {'created' if created else 'present'}, "
                  "create-only writes honoured")
    except (ClientError, BotoCoreError) as exc:
        print(f"object-store-setup: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
