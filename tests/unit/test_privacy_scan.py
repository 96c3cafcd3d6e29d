"""The privacy scanner and policy (docs/privacy.md), without Blender: every rule kind is caught
with file, line, column and rule; excerpts are redacted; reserved example domains, near misses
and everything the repository ships in a task package pass; image metadata is read; what the
scanner cannot read is pending; a broken policy names its file and field; every bundled seed
scans clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import ExifTags, Image, PngImagePlugin
from temporalio.exceptions import ApplicationError

from activities import harbor_task
from blender.runner import BLENDER_SCRIPTS
from contracts.errors import NON_RETRYABLE, PRIVACY_FINDING
from storage.content import FilesystemStore
from contracts.payloads.authoring import TaskIdentity
from contracts.validation import ContractError
from privacy.checkpoints import check_export, solver_view
from privacy.extract import cache_name, reader_version
from privacy.policy import load_policy, load_policy_for, prc_id
from privacy.scan import BLEND_PENDING, UNKNOWN_BINARY, scan_text, scan_tree
from verifiers.version import REWARDKIT_FILES

ROOT = Path(__file__).resolve().parents[2]
POLICY_REF = {"policy_id": "rl-task-basic-sanitization", "policy_version": "0.1.1"}

# One planted sample per rule, with the column where the match starts.
SAMPLES = {
    "confidential-marking": "Status: CONFIDENTIAL, keep it in the studio",
    "internal-hostname": "textures live on assets01.studio.corp for now",
    "private-address-url": "fetch it from http://192.168.10.20:8080/scene.blend",
    "aws-access-key-id": "key id AKIAQ3EGRIT4VZ7XK2MB",
    "aws-secret-access-key": "aws_secret_access_key = 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",
    "private-key-block": "-----BEGIN RSA PRIVATE KEY-----",
    "openai-style-api-key": "use sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv",
    "github-token": "token ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8",
    "slack-token": "bot xoxb-2048161173-Xy7pQ2rS9tU4",
    "jwt": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "google-api-key": "maps AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "huggingface-token": "HF hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "credential-assignment": 'DB_PASSWORD="Tr0ub4dor-and-3-more"',
    "email-address": "questions to jane.doe@acme-robotics.com please",
    "phone-international": "call +86 138 0013 8000 after six",
    "prc-resident-id": "ID 11010519491231002X on file",
    "payment-card-number": "card 4111 1111 1111 1111 exp 12/29",
    "gps-position": "GPSLatitude: 52.370216",
}
MATCH_START = {
    "confidential-marking": "CONFIDENTIAL", "internal-hostname": "assets01",
    "private-address-url": "http://", "aws-access-key-id": "AKIA",
    "aws-secret-access-key": "aws_", "private-key-block": "-----", "openai-style-api-key": "sk-",
    "github-token": "ghp_", "slack-token": "xoxb", "jwt": "eyJ", "google-api-key": "AIza",
    "huggingface-token": "hf_", "credential-assignment": "DB_", "email-address": "jane",
    "phone-international": "+86", "prc-resident-id": "1101", "payment-card-number": "4111",
    "gps-position": "GPS",
}
# Near misses: the same shapes a rule looks for, which are not findings.
CLEAN = [
    "write to support@example.com, ci@builds.example.org or dev@render.test",
    "git clone git@github.com:arkevo/arkevo.git",
    "keep it confidential between us (lower case prose is not a marking)",
    "server at http://127.0.0.1:8233 and http://localhost:7233",
    "digest 4cd805899cb24fc08c2b5ba8c5676696a915007d4de8e5a4c53ec5cfaeeaf21e",
    # a sha256 whose digits run 16 long with a valid Luhn digit (a calibration report's key)
    "objects/5f/798627db65a8d471f3288407e445de0f53261539a6060857417469795c18d5",
    "x = 0.1234567890123456 and 4111 1111 1111 1112 fails its check digit",
    "legs 0.75 m +10 cm tolerance +0.005, scale +1.25",
    "token = self.tokenizer.encode_batch",
    "api_key = os.environ.get('ARKEVO_AUTHOR_API_KEY')",
    'password: "your-password-here-please"',
    "ask-for-permission-before-touching-the-rig",
    "ID 11010519491231002 without its check digit, 110105194912310021 with a wrong one",
    "frame 1234567890123456789 of the long take",
    "self.store.materialize_tree(package, dest)",
]


@pytest.fixture(scope="module")
def policy():
    return load_policy_for(POLICY_REF)


def test_the_samples_cover_every_rule(policy):
    assert {r.id for r in policy.rules} == set(SAMPLES)
    assert {r.kind for r in policy.rules} == {"forbidden", "secret", "personal"}


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_each_rule_is_caught_with_line_and_column(policy, rule):
    text = f"first line\n{SAMPLES[rule]}\n"
    found = [f for f in scan_text(text, policy, "materials/brief.md") if f.rule == rule]
    assert len(found) == 1, scan_text(text, policy, "x")
    finding = found[0]
    kind = next(r.kind for r in policy.rules if r.id == rule)
    assert (finding.file, finding.line, finding.kind) == ("materials/brief.md", 2, kind)
    assert finding.column == SAMPLES[rule].index(MATCH_START[rule]) + 1
    assert finding.where == f"materials/brief.md:2:{finding.column}"


@pytest.mark.parametrize("text", CLEAN)
def test_near_misses_and_reserved_example_domains_are_not_findings(policy, text):
    assert scan_text(text, policy, "notes.md") == []


def test_a_tree_reports_every_kind_with_file_line_column_and_a_redacted_excerpt(policy, tmp_path):
    key = "AKIAQ3EGRIT4VZ7XK2MB"
    (tmp_path / "materials").mkdir()
    (tmp_path / "materials" / "brief.md").write_text(
        f"# Brief\n\nINTERNAL ONLY\nupload with {key}\nmail jane.doe@acme-robotics.com\n")
    (tmp_path / "seed.json").write_text(json.dumps(
        {"seed_id": "x", "provenance": {"source": "s", "license": "CC-BY-NC-4.0",
                                        "collected_by": "c"}}, indent=2))
    report = scan_tree(tmp_path, policy)
    got = {(f.file, f.line, f.column, f.rule, f.kind) for f in report.findings}
    assert got == {
        ("materials/brief.md", 3, 1, "confidential-marking", "forbidden"),
        ("materials/brief.md", 4, 13, "aws-access-key-id", "secret"),
        ("materials/brief.md", 5, 6, "email-address", "personal"),
        ("seed.json", 5, 5, "licence-not-allowed", "licence"),
    }
    assert report.files_scanned == 2 and report.pending == []
    assert report.policy_sha256 == policy.sha256 and len(policy.sha256) == 64
    by_rule = {f.rule: f for f in report.findings}
    assert by_rule["aws-access-key-id"].excerpt == "AKIA…"
    assert by_rule["email-address"].excerpt == "jane…"
    assert by_rule["licence-not-allowed"].location == "provenance.license"
    # the secret itself travels nowhere: not in the report, not in the error
    error = _error(report)
    assert key not in json.dumps(report.as_dict()) and key not in str(error.details)
    assert key not in error.message and "acme-robotics" not in error.message
    assert error.type == PRIVACY_FINDING and error.non_retryable and PRIVACY_FINDING in NON_RETRYABLE
    assert error.message.splitlines()[1] == (
        "privacy finding in materials/brief.md:4:13: rule aws-access-key-id (secret) AKIA…")
    assert len(error.message.splitlines()) == 4  # every finding listed


def _error(report) -> ApplicationError:
    from contracts.errors import privacy_finding
    return privacy_finding(report)


@pytest.mark.parametrize("licence, ok", [
    ("CC0-1.0", True), ("MIT", True), ("CC-BY-4.0 OR GPL-3.0-only", True),
    ("CC-BY-NC-4.0", False), ("GPL-3.0-only", False), ("MIT AND GPL-3.0-only", False),
])
def test_licences_are_checked_against_the_policy(policy, tmp_path, licence, ok):
    (tmp_path / "seed.json").write_text(json.dumps({"provenance": {"license": licence}}))
    findings = scan_tree(tmp_path, policy).findings
    assert (findings == []) is ok


# --- binaries ---------------------------------------------------------------------------------


def _png(path: Path, *texts: tuple[str, str, str]) -> None:
    """A 1x1 PNG written by Pillow with text chunks: (kind, key, value), kind tEXt, zTXt or iTXt."""
    info = PngImagePlugin.PngInfo()
    for kind, key, value in texts:
        if kind == "iTXt":
            info.add_itxt(key, value, lang="en")
        else:
            info.add_text(key, value, zip=kind == "zTXt")
    Image.new("RGB", (1, 1)).save(path, "PNG", pnginfo=info)


def test_png_text_chunks_are_read_and_pixels_covered(policy, tmp_path):
    key = "ghp_Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
    _png(tmp_path / "plain.png")
    _png(tmp_path / "text.png", ("tEXt", "Comment", "pushed with " + key))
    _png(tmp_path / "ztext.png", ("zTXt", "Author", "jane.doe@acme-robotics.com"))
    _png(tmp_path / "itext.png", ("iTXt", "Description", "仅限内部 review"))
    report = scan_tree(tmp_path, policy)
    got = {(f.file, f.location, f.rule, f.line) for f in report.findings}
    assert got == {("text.png", "png:tEXt:Comment", "github-token", 1),
                   ("ztext.png", "png:zTXt:Author", "email-address", 1),
                   ("itext.png", "png:iTXt:Description", "confidential-marking", 1)}
    text = next(f for f in report.findings if f.file == "text.png")
    assert text.offset == 8 + 25 and text.column == 13  # the chunk after IHDR; column in its text
    assert text.where == "text.png:png:tEXt:Comment@33:1:13"
    assert report.pending == [] and report.files_scanned == 4


def test_jpeg_comment_and_exif_are_read(policy, tmp_path):
    """A JPEG as Pillow writes one (JFIF, EXIF with Exif and GPS sub-IFDs, a comment, a scan)."""
    exif = Image.Exif()
    exif[ExifTags.Base.Artist] = "Jane Roe"
    exif.get_ifd(ExifTags.IFD.Exif)[ExifTags.Base.UserComment] = b"ASCII\0\0\0key AKIAQ3EGRIT4VZ7XK2MB"
    exif.get_ifd(ExifTags.IFD.GPSInfo).update({
        ExifTags.GPS.GPSLatitudeRef: "N", ExifTags.GPS.GPSLatitude: (52.0, 22.0, 12.78),
        ExifTags.GPS.GPSLongitudeRef: "E", ExifTags.GPS.GPSLongitude: (4.0, 53.0, 36.0)})
    Image.new("RGB", (8, 8)).save(tmp_path / "photo.jpg", "JPEG", exif=exif, comment="INTERNAL ONLY")
    report = scan_tree(tmp_path, policy)
    got = {(f.location, f.rule) for f in report.findings}
    assert got == {("exif:UserComment", "aws-access-key-id"), ("jpeg:COM", "confidential-marking"),
                   ("exif:GPS:GPSLatitude", "gps-position"), ("exif:GPS:GPSLongitude", "gps-position")}
    assert report.pending == []


def test_what_cannot_be_read_is_pending(policy, tmp_path):
    (tmp_path / "start.blend").write_bytes(b"BLENDER-v504" + b"\0" * 64)
    (tmp_path / "model.fbx").write_bytes(b"Kaydara FBX Binary  \0\x1a\0" + bytes(range(256)))
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR")
    (tmp_path / "notes.txt").write_text("nothing to see\n")
    report = scan_tree(tmp_path, policy)
    pending = {p.file: p.reason for p in report.pending}
    assert pending["start.blend"] == BLEND_PENDING
    assert pending["model.fbx"] == UNKNOWN_BINARY
    assert pending["broken.png"].startswith("unreadable png:")
    assert "notes.txt" not in pending and report.findings == [] and report.files_scanned == 4
    assert all(len(p.sha256) == 64 for p in report.pending)


def test_a_read_blend_is_scanned_by_text_block_and_property(policy, tmp_path):
    blend = tmp_path / "environment" / "workspace" / "inputs" / "start.blend"
    blend.parent.mkdir(parents=True)
    blend.write_bytes(b"BLENDER-v504" + b"\0" * 64)
    doc = {"texts": [{"name": "Notes", "lines": ["todo", "key = AKIAQ3EGRIT4VZ7XK2MB"]}],
           "strings": [{"location": "prop:Object/Cube/owner", "value": "jane.doe@acme-robotics.com"},
                       {"location": "name:Object/Cube", "value": "Cube"}]}
    report = scan_tree(tmp_path, policy, blend_texts=lambda sha: doc)
    wheres = sorted(f.where for f in report.findings)
    assert wheres == ["environment/workspace/inputs/start.blend:prop:Object/Cube/owner:1:1",
                      "environment/workspace/inputs/start.blend:text:Notes:2:7"]
    assert report.pending == []
    assert scan_tree(tmp_path, policy, blend_texts=lambda sha: {"error": "not a blend"}).pending[
        0].reason == "Blender could not read it: not a blend"


def test_export_takes_blends_from_the_extraction_cache(policy, tmp_path):
    store = FilesystemStore(tmp_path / "store")
    staging = tmp_path / "publication"
    (staging / "private").mkdir(parents=True)
    read = staging / "private" / "reference.blend"
    read.write_bytes(b"BLENDER-v504 read")
    unread = staging / "private" / "other.blend"
    unread.write_bytes(b"BLENDER-v504 unread")
    from privacy.scan import sha256_of
    store.set_name(cache_name(sha256_of(read)), store.put_json(
        {"texts": [], "strings": [{"location": "name:Object/Leg", "value": "Leg"}],
         "reader": reader_version()}))
    report = check_export(staging, policy, store)
    assert report.checkpoint == "export"
    assert [(p.file, p.reason) for p in report.pending] == [("private/other.blend", BLEND_PENDING)]
    store.set_name(cache_name(sha256_of(unread)), store.put_json(
        {"texts": [{"name": "README", "lines": ["CONFIDENTIAL"]}], "strings": [],
         "reader": reader_version()}))
    with pytest.raises(ApplicationError) as raised:
        check_export(staging, policy, store)
    assert raised.value.type == PRIVACY_FINDING
    assert raised.value.message == ("privacy finding in private/other.blend:text:README:1:1: "
                                    "rule confidential-marking (forbidden) CONF…")
    # an extraction made by another reader version is not trusted as coverage
    store.set_name(cache_name(sha256_of(unread)), store.put_json(
        {"texts": [], "strings": [], "reader": "older"}))
    assert [p.file for p in check_export(staging, policy, store).pending] == ["private/other.blend"]


def test_the_solver_view_is_the_instruction_and_the_environment(tmp_path):
    for rel in ("instruction.md", "task.toml", "environment/Dockerfile",
                "environment/workspace/inputs/start.blend", "environment/workspace/public/spec.md",
                "tests/task.json", "tests/rule_probe.py", "solution/solve.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    assert solver_view(tmp_path) == ["environment/Dockerfile",
                                     "environment/workspace/inputs/start.blend",
                                     "environment/workspace/public/spec.md", "instruction.md"]


# --- policy files -------------------------------------------------------------------------------

GOOD = {"policy_id": "p", "policy_version": "1.0.0", "title": "t",
        "rules": [{"id": "r1", "kind": "secret", "description": "d", "pattern": "AKIA[0-9A-Z]{16}"}],
        "allowed_licences": ["MIT"]}


@pytest.mark.parametrize("doc, name, field, reason", [
    ({k: v for k, v in GOOD.items() if k != "rules"}, "p@1.0.0", "rules", "required"),
    ({**GOOD, "rules": [{**GOOD["rules"][0], "kind": "rude"}]}, "p@1.0.0", "rules[0].kind", "rude"),
    ({**GOOD, "rules": [{**GOOD["rules"][0], "pattern": "(["}]}, "p@1.0.0", "rules[0].pattern",
     "not a valid regular expression"),
    ({**GOOD, "rules": [{**GOOD["rules"][0], "allow": ["ok", "*bad"]}]}, "p@1.0.0",
     "rules[0].allow[1]", "not a valid regular expression"),
    ({**GOOD, "rules": GOOD["rules"] * 2}, "p@1.0.0", "rules[1].id", "duplicate rule id"),
    ({**GOOD, "rules": [{**GOOD["rules"][0], "validator": "crc"}]}, "p@1.0.0",
     "rules[0].validator", "crc"),
    ({**GOOD, "allowed_licences": ["MIT", "MIT"]}, "p@1.0.0", "allowed_licences", "non-unique"),
    (GOOD, "p@2.0.0", "policy_version", "named p@2.0.0.json but holds p@1.0.0"),
])
def test_a_broken_policy_names_its_file_and_field(tmp_path, doc, name, field, reason):
    (tmp_path / f"{name}.json").write_text(json.dumps(doc))
    policy_id, version = name.split("@")
    with pytest.raises(ContractError) as raised:
        load_policy(policy_id, version, policy_dir=tmp_path)
    error = raised.value
    assert error.file.endswith(f"{name}.json") and error.field == field, str(error)
    assert reason in error.reason, str(error)


def test_a_missing_policy_names_the_file_and_the_known_ones(tmp_path):
    (tmp_path / "p@1.0.0.json").write_text(json.dumps(GOOD))
    assert load_policy("p", "1.0.0", policy_dir=tmp_path).rules[0].id == "r1"
    with pytest.raises(ContractError) as raised:
        load_policy("p", "9.9.9", policy_dir=tmp_path)
    assert raised.value.file.endswith("p@9.9.9.json") and raised.value.field == "<root>"
    assert "no privacy policy p@9.9.9 (known: p@1.0.0)" in str(raised.value)


def test_validators():
    assert prc_id("11010519491231002X") and not prc_id("110105194912310021")


# --- what the project ships ---------------------------------------------------------------------


def _seeds() -> list[Path]:
    return sorted(p for p in (ROOT / "seeds").iterdir() if (p / "seed.json").is_file())


@pytest.mark.parametrize("seed", _seeds(), ids=lambda p: p.name)
def test_every_bundled_seed_scans_clean(policy, seed):
    files = [p.relative_to(seed).as_posix() for p in seed.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    report = scan_tree(seed, load_policy_for(json.loads((seed / "seed.json").read_text())[
        "sanitization_policy"]), files=files)
    assert report.findings == [], report.message()
    assert all(p.file.endswith(".blend") for p in report.pending), report.pending


def test_what_the_repository_puts_in_a_task_package_scans_clean(policy):
    """Probe code, packaged grading, the solution runner and the generated Harbor files: they
    are in every dispatched and published task, so a rule that matched them would block all."""
    verifiers = ROOT / "verifiers"
    files = {f"tests/{name}": (verifiers / name).read_text() for name in (
        *REWARDKIT_FILES, *harbor_task.PACKAGED_GRADING_SCRIPTS, *harbor_task.PACKAGED_GRADING_MODULES)}
    files["solution/apply_script.py"] = (BLENDER_SCRIPTS / "apply_script.py").read_text()
    for name in ("TEST_SH", "SOLVE_SH"):
        files[name] = getattr(harbor_task, name)
    files["environment/Dockerfile"] = harbor_task.dockerfile()
    files["task.toml"] = harbor_task.task_toml(
        TaskIdentity("table-model", "draft", "vv2-00000000000000aa", "0" * 64, "MOD-01", "PRF-3DART"))
    findings = [f for rel, text in files.items() for f in scan_text(text, policy, rel)]
    assert findings == [], [f.message() for f in findings]


@pytest.mark.parametrize("line", ["a." * 100_000, "a_" * 100_000, "1234-" * 50_000, "+1(2)-" * 50_000,
                                  "a@a." * 50_000, "x.corp." * 50_000, "secret_" * 50_000])
def test_a_pathological_line_scans_in_linear_time(policy, line):
    """Every rule runs on whole lines of untrusted text: no pattern may backtrack quadratically
    (a lazy prefix once did on `a.a.a.…`)."""
    import time
    started = time.monotonic()
    scan_text(line, policy, "big.txt")
    assert time.monotonic() - started < 3
