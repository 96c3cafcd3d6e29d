"""The content-addressed store and the object stores under it, on both backends: a directory and
an S3 bucket (moto's server on loopback, `s3_server` in tests/conftest.py). Keys come from
content, writes are create-only, reads are integrity-checked."""

from __future__ import annotations

import hashlib
import stat
import tempfile
import threading
from pathlib import Path

import pytest
from botocore.exceptions import ClientError

from storage.content import ContentStore, FilesystemStore, StoreIntegrityError, store_from_env
from storage.objects import FilesystemObjects, ObjectMissing
from storage.s3 import MIN_PART_SIZE, S3Objects
from storage.uri import objects_from_uri

PREFIX = "deploy/store"  # S3 keys live under a prefix, to exercise the mapping


@pytest.fixture(params=["filesystem", "s3"])
def kind(request) -> str:
    return request.param


@pytest.fixture
def objects(kind, tmp_path, request, monkeypatch):
    """The object store under test; on S3 a fresh bucket, and the system temp folder (where the
    content store stages uploads) moved into tmp_path so a test can see it is left empty."""
    if kind == "filesystem":
        return FilesystemObjects(tmp_path / "store")
    systmp = tmp_path / "systmp"
    systmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(systmp))
    return S3Objects(request.getfixturevalue("s3_bucket"), PREFIX,
                     request.getfixturevalue("s3_client"))


@pytest.fixture
def store(kind, objects, tmp_path) -> ContentStore:
    """`FilesystemStore(root)` as callers build it, or the same class over S3."""
    return FilesystemStore(tmp_path / "store") if kind == "filesystem" else ContentStore(objects)


def tamper(objects, key: str, data: bytes) -> None:
    """Overwrite an object behind the store's back."""
    if isinstance(objects, FilesystemObjects):
        path = objects.local_path(key)
        path.chmod(0o644)
        path.write_bytes(data)
    else:
        objects.client.put_object(Bucket=objects.bucket, Key=f"{PREFIX}/{key}", Body=data)


def staging_dir(store: ContentStore) -> Path:
    return store.backend.staging_dir() or Path(tempfile.gettempdir())


# -- the content store ---------------------------------------------------------------------


def test_identical_content_is_stored_once(store, tmp_path):
    a = store.put_bytes(b"hello")
    (tmp_path / "f").write_bytes(b"hello")
    b = store.put_file(tmp_path / "f")
    assert a == b and a.sha256 == hashlib.sha256(b"hello").hexdigest() and a.size == 5
    assert a.key == f"objects/{a.sha256[:2]}/{a.sha256[2:]}"
    assert store.count() == 1
    assert not any(staging_dir(store).iterdir())  # no temp file left behind


def test_a_file_the_store_holds_is_named_without_staging(store, tmp_path, monkeypatch):
    held = store.put_bytes(b"a delivery")
    (tmp_path / "held").write_bytes(b"a delivery")
    (tmp_path / "new").write_bytes(b"another delivery")
    staged = []
    real_mkstemp = tempfile.mkstemp
    monkeypatch.setattr(tempfile, "mkstemp", lambda *a, **kw: staged.append(kw) or real_mkstemp(*a, **kw))
    assert store.put_file(tmp_path / "held") == held and staged == []
    new = store.put_file(tmp_path / "new")
    assert len(staged) == 1 and store.get_bytes(new) == b"another delivery"


def test_tree_round_trip(store, tmp_path):
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "top.txt").write_text("top")
    (src / "a" / "b" / "deep.bin").write_bytes(bytes(range(256)))
    tree = store.put_tree(src)
    assert set(store.tree_entries(tree)) == {"top.txt", "a/b/deep.bin"}
    out = store.materialize_tree(tree, tmp_path / "out")
    assert (out / "a" / "b" / "deep.bin").read_bytes() == bytes(range(256))
    only_a = store.materialize_tree(tree, tmp_path / "only", prefix="a/")
    assert [p.name for p in only_a.rglob("*") if p.is_file()] == ["deep.bin"]
    assert store.put_tree(src) == tree  # same content, same key
    assert store.tree_file(tree, "top.txt") == store.put_bytes(b"top")


def test_corrupted_object_is_detected(store, objects, tmp_path):
    ref = store.put_bytes(b"payload")
    tamper(objects, ref.key, b"tampered")
    with pytest.raises(StoreIntegrityError):
        store.get_bytes(ref)
    with pytest.raises(StoreIntegrityError):
        store.fetch_to(ref, tmp_path / "out" / "out.bin")
    assert list((tmp_path / "out").iterdir()) == []  # neither the file nor a partial one
    (tmp_path / "out" / "kept.bin").write_bytes(b"before")
    with pytest.raises(StoreIntegrityError):
        store.fetch_to(ref, tmp_path / "out" / "kept.bin")
    assert (tmp_path / "out" / "kept.bin").read_bytes() == b"before"


def test_missing_blob(store, tmp_path):
    ref = store.ref_for(hashlib.sha256(b"never stored").hexdigest(), 12)
    assert not store.exists(ref)
    with pytest.raises(FileNotFoundError):  # ObjectMissing is one
        store.get_bytes(ref)
    with pytest.raises(ObjectMissing):
        store.fetch_to(ref, tmp_path / "out" / "x")
    assert list((tmp_path / "out").iterdir()) == []


def test_fetch_to_and_exists(store, tmp_path):
    (tmp_path / "big.bin").write_bytes(bytes(range(256)) * 8192)  # 2 MiB, several chunks
    ref = store.put_file(tmp_path / "big.bin")
    assert store.exists(ref) and store.count() == 1
    out = store.fetch_to(ref, tmp_path / "deep" / "er" / "copy.bin")
    assert out.read_bytes() == (tmp_path / "big.bin").read_bytes()
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert store.get_json(store.put_json({"b": 1, "a": [2]})) == {"a": [2], "b": 1}


def test_named_pointers(store):
    first, second = store.put_bytes(b"one"), store.put_bytes(b"two")
    assert store.get_name("build/abc") is None
    store.set_name("build/abc", first)
    assert store.get_name("build/abc") == first
    store.set_name("build/abc", second)  # the one mutable part: a pointer moves
    assert store.get_name("build/abc") == second
    store.set_name("dangling", store.ref_for("0" * 64, 3))
    assert store.get_name("dangling") is None  # points at nothing stored
    for bad in ("", "../x", "a//b", "a/./b"):
        with pytest.raises(ValueError):
            store.set_name(bad, first)
    assert store.count() == 2  # pointers are not objects


def test_concurrent_writers_of_one_blob(store, tmp_path):
    data = b"same bytes" * 1000
    (tmp_path / "f").write_bytes(data)
    refs, barrier = [], threading.Barrier(8)

    def write(n: int):
        barrier.wait()
        refs.append(store.put_file(tmp_path / "f") if n % 2 else store.put_bytes(data))

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert len(refs) == 8 and len(set(refs)) == 1
    assert store.get_bytes(refs[0]) == data and store.count() == 1


def test_filesystem_layout_is_unchanged(tmp_path):
    """Callers and tests read `<root>/<ref.key>` directly; objects are read-only files."""
    store = FilesystemStore(tmp_path / "store")
    ref = store.put_bytes(b"hello")
    path = tmp_path / "store" / "objects" / ref.sha256[:2] / ref.sha256[2:]
    assert (tmp_path / "store" / ref.key) == path and path.read_bytes() == b"hello"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert store.objects == tmp_path / "store" / "objects" and store.root == tmp_path / "store"
    store.set_name("n", ref)
    assert (tmp_path / "store" / "names" / "n.json").is_file()
    assert store.location(ref) == str(path)


def test_s3_layout(s3_client, s3_bucket):
    store = ContentStore(S3Objects(s3_bucket, PREFIX, s3_client))
    ref = store.put_bytes(b"hello")
    store.set_name("n", ref)
    listed = s3_client.list_objects_v2(Bucket=s3_bucket)["Contents"]
    assert sorted(o["Key"] for o in listed) == [f"{PREFIX}/names/n.json", f"{PREFIX}/{ref.key}"]
    assert store.location(ref) == f"s3://{s3_bucket}/{PREFIX}/{ref.key}"


# -- object stores ---------------------------------------------------------------------------


def test_writes_are_create_only(objects, tmp_path):
    assert objects.put_if_absent("a/b.bin", b"first") is True
    assert objects.put_if_absent("a/b.bin", b"second") is False
    (tmp_path / "src").write_bytes(b"third")
    assert objects.put_file_if_absent("a/b.bin", tmp_path / "src") is False
    assert objects.get("a/b.bin") == b"first"
    assert objects.put_file_if_absent("a/c.bin", tmp_path / "src") is True
    assert objects.get("a/c.bin") == b"third"


def test_replace_overwrites(objects):
    objects.replace("names/x.json", b"1")
    objects.replace("names/x.json", b"2")
    assert objects.get("names/x.json") == b"2"
    assert objects.list("names/") == ["names/x.json"]  # no temp file beside it


def test_list_is_by_folder_sorted_and_recursive(objects):
    for key in ("a/b/2", "a/b/1", "a/b/deep/3", "a/bc/4", "z"):
        assert objects.put_if_absent(key, key.encode())
    assert objects.list("a/b/") == ["a/b/1", "a/b/2", "a/b/deep/3"]
    assert objects.list("a/b") == objects.list("a/b/")  # a folder, never a/bc
    assert objects.list("") == ["a/b/1", "a/b/2", "a/b/deep/3", "a/bc/4", "z"]  # no tmp/
    assert objects.list("nothing/") == []


def test_missing_objects(objects, tmp_path):
    assert not objects.exists("no/such")
    with pytest.raises(ObjectMissing):
        objects.get("no/such")
    with pytest.raises(ObjectMissing):
        objects.download("no/such", tmp_path / "dl" / "x")
    assert not (tmp_path / "dl" / "x").exists()
    objects.put_if_absent("no/such/thing", b"x")
    with pytest.raises(ObjectMissing):
        objects.get("no/such")  # a folder is not an object


def test_download_delete_and_where(objects, kind, tmp_path):
    objects.put_if_absent("p/q.bin", b"data")
    assert objects.exists("p/q.bin")
    out = objects.download("p/q.bin", tmp_path / "dl" / "q.bin")
    assert out.read_bytes() == b"data" and [p.name for p in out.parent.iterdir()] == ["q.bin"]
    if kind == "filesystem":
        assert objects.location("p/q.bin") == str(tmp_path / "store" / "p" / "q.bin")
        assert objects.local_path("p/q.bin") == tmp_path / "store" / "p" / "q.bin"
    else:
        assert objects.location("p/q.bin") == f"s3://{objects.bucket}/{PREFIX}/p/q.bin"
        assert objects.local_path("p/q.bin") is None
    objects.delete("p/q.bin")
    assert not objects.exists("p/q.bin") and objects.list("p/") == []
    objects.delete("p/q.bin")  # deleting nothing is fine


@pytest.mark.parametrize("key", ["", "/abs", "a//b", "a/../b", "./a", "a/"])
def test_invalid_keys(objects, key):
    with pytest.raises(ValueError):
        objects.put_if_absent(key, b"x")
    with pytest.raises(ValueError):
        objects.get(key)


def test_concurrent_put_if_absent_has_one_winner(objects):
    for round_ in range(5):
        key, results, barrier = f"race/{round_}", {}, threading.Barrier(8)

        def put(n: int):
            barrier.wait()
            results[n] = objects.put_if_absent(key, f"writer {n}".encode())

        threads = [threading.Thread(target=put, args=(n,)) for n in range(8)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        winners = [n for n, wrote in results.items() if wrote]
        assert len(results) == 8 and len(winners) == 1
        assert objects.get(key) == f"writer {winners[0]}".encode()


# -- S3 specifics ----------------------------------------------------------------------------


def test_s3_server_refuses_a_second_conditional_put(s3_client, s3_bucket):
    """The immutability rests on the server honouring If-None-Match: check moto does."""
    s3_client.put_object(Bucket=s3_bucket, Key="k", Body=b"one", IfNoneMatch="*")
    with pytest.raises(ClientError) as refused:
        s3_client.put_object(Bucket=s3_bucket, Key="k", Body=b"two", IfNoneMatch="*")
    assert refused.value.response["Error"]["Code"] == "PreconditionFailed"
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 412
    assert s3_client.get_object(Bucket=s3_bucket, Key="k")["Body"].read() == b"one"


def test_s3_large_files_go_multipart_create_only(s3_client, s3_bucket, tmp_path):
    objects = S3Objects(s3_bucket, PREFIX, s3_client,
                        multipart_threshold=MIN_PART_SIZE, part_size=MIN_PART_SIZE)
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * (MIN_PART_SIZE * 2 // 256 + 1))  # three parts
    assert objects.put_file_if_absent("big.bin", big) is True
    assert objects.get("big.bin") == big.read_bytes()
    other = tmp_path / "other.bin"
    other.write_bytes(b"\0" * (MIN_PART_SIZE + 1))
    # Past the HEAD check, the condition on CompleteMultipartUpload itself refuses it:
    assert objects._multipart("big.bin", f"{PREFIX}/big.bin", other) is False
    assert objects.get("big.bin") == big.read_bytes()
    assert not s3_client.list_multipart_uploads(Bucket=s3_bucket).get("Uploads")  # aborted


def test_s3_missing_bucket_is_not_a_missing_object(s3_client):
    objects = S3Objects("arkevo-no-such-bucket", "", s3_client)
    with pytest.raises(ClientError) as err:
        objects.get("k")
    assert err.value.response["Error"]["Code"] == "NoSuchBucket"


class _Conflicted:
    """A client whose conditional PUT meets a concurrent one (409) before it is answered."""

    def __init__(self, then: str):
        self.then, self.calls = then, 0

    def put_object(self, **kwargs):
        self.calls += 1
        if self.calls == 1:
            raise ClientError({"Error": {"Code": "ConditionalRequestConflict"},
                               "ResponseMetadata": {"HTTPStatusCode": 409}}, "PutObject")
        if self.then == "taken":
            raise ClientError({"Error": {"Code": "PreconditionFailed"},
                               "ResponseMetadata": {"HTTPStatusCode": 412}}, "PutObject")
        return {}


@pytest.mark.parametrize(("then", "wrote"), [("taken", False), ("free", True)])
def test_s3_conflict_is_retried(then, wrote):
    client = _Conflicted(then)
    assert S3Objects("bucket", "", client).put_if_absent("k", b"x") is wrote
    assert client.calls == 2


# -- configuration ---------------------------------------------------------------------------


@pytest.fixture
def aws_env(monkeypatch, tmp_path):
    """No ambient AWS configuration: every variable a test needs is set with monkeypatch."""
    for var in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
                "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "ARKEVO_S3_ENDPOINT_URL",
                "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-aws-credentials"))
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    return monkeypatch


def test_objects_from_uri_paths(tmp_path):
    assert objects_from_uri(str(tmp_path / "s")).root == tmp_path / "s"
    assert objects_from_uri(f"file://{tmp_path}/s").root == tmp_path / "s"
    assert objects_from_uri("var/store").root == Path("var/store")


def test_objects_from_uri_s3(aws_env):
    aws_env.setenv("ARKEVO_S3_ENDPOINT_URL", "http://127.0.0.1:9")
    objects = objects_from_uri("s3://my-bucket/some/prefix/")
    assert isinstance(objects, S3Objects)
    assert (objects.bucket, objects.prefix) == ("my-bucket", "some/prefix")
    assert objects.client.meta.endpoint_url == "http://127.0.0.1:9"
    assert objects.client.meta.region_name == "us-east-1"
    aws_env.delenv("ARKEVO_S3_ENDPOINT_URL")
    aws_env.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:8")  # boto3's own variable
    aws_env.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    objects = objects_from_uri("s3://other-bucket")
    assert (objects.bucket, objects.prefix) == ("other-bucket", "")
    assert objects.client.meta.endpoint_url == "http://127.0.0.1:8"
    assert objects.client.meta.region_name == "eu-west-1"


@pytest.mark.parametrize(("uri", "says"), [("gs://bucket/x", "unknown scheme 'gs'"),
                                           ("s3://", "no bucket name"),
                                           ("s3:///prefix", "no bucket name"),
                                           ("", "ARKEVO_STORE is empty")])
def test_objects_from_uri_errors(uri, says):
    with pytest.raises(ValueError, match=says) as err:
        objects_from_uri(uri)
    assert "ARKEVO_STORE" in str(err.value) and repr(uri)[1:-1] in str(err.value)


def test_store_from_env(aws_env, tmp_path, s3_server, s3_bucket, s3_client):
    aws_env.delenv("ARKEVO_STORE", raising=False)
    default = store_from_env(tmp_path)
    assert isinstance(default, FilesystemStore) and default.root == tmp_path / "var" / "store"
    aws_env.setenv("ARKEVO_STORE", str(tmp_path / "elsewhere"))
    assert store_from_env(tmp_path).root == tmp_path / "elsewhere"
    aws_env.setenv("ARKEVO_STORE", f"s3://{s3_bucket}/env")
    aws_env.setenv("ARKEVO_S3_ENDPOINT_URL", s3_server)
    store = store_from_env(tmp_path)
    assert not isinstance(store, FilesystemStore) and isinstance(store.backend, S3Objects)
    ref = store.put_bytes(b"via the environment")
    key = f"env/{ref.key}"
    assert s3_client.get_object(Bucket=s3_bucket, Key=key)["Body"].read() == b"via the environment"
