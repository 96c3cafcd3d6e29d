"""VL channel: a task's judge questions A / B / C, answers, the A-gate, and the offline
``image-metric`` judge.

A task's ``draft/judge.json`` holds the questions and the evidence (reference-render)
settings::

    {"judge_version": "1",
     "questions": [{"id": "A", "gate": true, "weight": 0.2, "scale": "binary",
                    "images": ["front.png", ...], "prompt": "...",
                    "metric": {"kind": "silhouette_iou", "views": [...], "pass_at": 0.5}}, ...],
     "evidence": {... see verifiers.evidence.resolve_spec ...},
     "reference": {"solution": "solution/solve.py"}}

Question A asks whether the deliverable is the requested thing at all; B and C rate quality
aspects.  ``vl_score``: if the gate question's answer is 0 the score is 0 whatever the others
say (the A-gate); otherwise any unanswered question makes the VL score *missing* (None, with
the reason) and otherwise it is the weight-normalised sum of the answers (each 0..1).

Two kinds of judge fill the answers: a vision model over an OpenAI-compatible API
(``verifiers.vl_model_judge``) and ``image-metric``, which compares the delivery's evidence renders
with the reference deliverable's renders using the question's ``metric``.  They carry
different judge ids, and ``verifiers.profiles.aggregate`` refuses to mix them.

The module runs in the worker and, copied into a published task's ``tests/verifiers/``, in the
task image's bpy venv (``verifiers/packaged_grade.py``), where ``environment/Dockerfile``
installs Pillow, pinned to the worker's version, beside bpy and its numpy: one image code path,
so a published task grades with the pipeline's own decoding.  ``contact_sheet`` lives here for
the same reason: the evidence cache and the packaged grader both build the frames' sheet.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import cast

import numpy as np
from PIL import Image

from verifiers import colour_math

IMAGE_METRIC_ID = "image-metric"
IMAGE_METRIC_VERSION = "2"  # 2: thresholded questions decided per view (the worst view)
# A question whose metric scores the untouched input at least this high cannot tell the work
# from no work on this task: it is reported ``uninformative`` (see profiles.UNINFORMATIVE_AT).
UNINFORMATIVE_AT = 0.9
SCALES = {"binary": 1.0, "0-10": 10.0, "0-1": 1.0}
METRICS = ("silhouette_iou", "view_similarity", "frame_similarity", "colour_similarity")


@dataclass(frozen=True)
class Question:
    id: str
    prompt: str
    weight: float
    scale: str = "0-10"
    gate: bool = False
    images: tuple[str, ...] = ()
    metric: dict = field(default_factory=dict)


@dataclass
class JudgeConfig:
    version: str
    questions: list[Question]
    evidence: dict
    reference: dict
    raw: dict

    @property
    def gate(self) -> Question | None:
        return next((q for q in self.questions if q.gate), None)


def load_judge_config(path: Path | dict) -> JudgeConfig:
    raw = json.loads(Path(path).read_text(encoding="utf-8")) if not isinstance(path, dict) else path
    questions = []
    for q in raw["questions"]:
        if q.get("scale", "0-10") not in SCALES:
            raise ValueError(f"judge question {q['id']}: unknown scale {q.get('scale')!r}")
        metric = q.get("metric", {})
        if metric and metric.get("kind") not in METRICS:
            raise ValueError(f"judge question {q['id']}: unknown metric {metric.get('kind')!r}")
        questions.append(Question(q["id"], q["prompt"], float(q["weight"]), q.get("scale", "0-10"),
                                  bool(q.get("gate", False)), tuple(q.get("images", ())), metric))
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError(f"judge questions ids repeat: {ids}")
    if sum(q.gate for q in questions) > 1:
        raise ValueError("at most one gate question")
    if abs(sum(q.weight for q in questions) - 1.0) > 1e-6:
        raise ValueError("judge question weights must sum to 1")
    return JudgeConfig(str(raw.get("judge_version", "1")), questions, raw.get("evidence", {}),
                       raw.get("reference", {}), raw)


@dataclass
class Answer:
    """One question's answer: ``score`` 0..1, or None with ``error`` (missing)."""

    id: str
    score: float | None
    reason: str = ""
    raw: str | None = None
    error: str | None = None
    attempts: int = 0
    # image-metric with the untouched input's renders: the input's own value of this metric,
    # and whether it is so high (>= UNINFORMATIVE_AT) that the question cannot tell work from none
    input_score: float | None = None
    uninformative: bool = False


@dataclass
class VLResult:
    judge: dict  # {"id", "kind", "label", ...}
    answers: dict[str, Answer]
    vl_score: float | None
    missing_reason: str | None
    gated: bool
    # the delivery broke the grader's evidence renders (budget exceeded, renderer died on it):
    # {"type", "stage", "detail"}; the profile grades such a delivery 0 (score_record)
    delivery_failure: dict | None = None

    def to_dict(self) -> dict:
        out = {"judge": self.judge, "vl_score": self.vl_score, "missing_reason": self.missing_reason,
               "gated": self.gated, "answers": {k: asdict(a) for k, a in self.answers.items()}}
        if self.delivery_failure is not None:  # absent otherwise: earlier records stay byte-identical
            out["delivery_failure"] = self.delivery_failure
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "VLResult":
        return cls(d["judge"], {k: Answer(**a) for k, a in d["answers"].items()}, d["vl_score"],
                   d["missing_reason"], d["gated"], d.get("delivery_failure"))


def combine(config: JudgeConfig, answers: dict[str, Answer], judge: dict) -> VLResult:
    """Apply the A-gate and the question weights."""
    gate = config.gate
    if gate is not None and answers.get(gate.id) is not None and answers[gate.id].score == 0:
        return VLResult(judge, answers, 0.0, None, True)
    missing = [a or Answer(q.id, None) for q in config.questions if (a := answers.get(q.id)) is None or a.score is None]
    if missing:
        why = "; ".join(f"question {a.id}: {a.error or 'no answer'}" for a in missing)
        return VLResult(judge, answers, None, f"VL missing: {why}", False)
    total = sum(q.weight * cast(float, answers[q.id].score) for q in config.questions)  # none missing
    return VLResult(judge, answers, round(total, 6), None, False)


# The grader's time for one delivery's evidence renders: its own render settings keep an honest
# delivery far inside it (render_evidence.py's Cycles limits: seconds a view).
EVIDENCE_BUDGET_SEC = 600
# What an evidence error says when the delivery exhausted the grader's render budget, or the
# renderer died on it (activities/evidence.py, packaged_grade.py): the solver's failure.
BUDGET_EXCEEDED = "GraderBudgetExceeded"
RENDERER_BROKEN = "DeliveryBrokeRenderer"


def delivery_failure_of(reason: str) -> dict | None:
    """{type, stage, detail} when an evidence error is the delivery's doing, else None."""
    for kind in (BUDGET_EXCEEDED, RENDERER_BROKEN):
        if reason.startswith(kind + ":"):
            return {"type": kind, "stage": "evidence renders", "detail": reason[len(kind) + 1:].strip()}
    return None


def no_evidence_result(config: JudgeConfig, judge: dict, reason: str) -> VLResult:
    """A delivery with nothing to render (missing / unreadable, or one that broke the grader's
    renders): the gate answers 0, and a broken render is named as the delivery's failure."""
    gate = config.gate or config.questions[0]
    answers = {gate.id: Answer(gate.id, 0.0, f"no evidence: {reason}")}
    return VLResult(judge, answers, 0.0, None, True, delivery_failure_of(reason))


# --- image-metric: the offline judge ----------------------------------------------------------


def image_metric_judge_id() -> dict:
    return {"id": f"{IMAGE_METRIC_ID}@{IMAGE_METRIC_VERSION}", "kind": "offline-metric",
            "label": "offline image-metric judge (similarity to the reference renders) - not a model result"}


def _load(folder: Path, name: str) -> np.ndarray | None:
    """A render as (height, width, 4) RGBA uint8, or None when it is not there."""
    p = Path(folder) / name
    if not p.is_file():
        return None
    with Image.open(p, formats=("PNG",)) as img:
        return np.asarray(img.convert("RGBA"))


def contact_sheet(frames: list[Path], columns: int = 4, background=(40, 40, 40)) -> Image.Image:
    """Equally sized frames tiled row-major onto an opaque RGB sheet, each alpha-composited
    over ``background``."""
    if not frames:
        raise ValueError("no frames for a contact sheet")
    tiles = []
    for path in frames:
        with Image.open(path, formats=("PNG",)) as img:
            tiles.append(img.convert("RGBA"))
    width, height = tiles[0].size
    rows = -(-len(tiles) // columns)
    sheet = Image.new("RGB", (columns * width, rows * height), background)
    for i, tile in enumerate(tiles):
        row, column = divmod(i, columns)
        sheet.paste(tile, (column * width, row * height), tile)  # the tile's alpha as the mask
    return sheet


def _mask(img: np.ndarray) -> np.ndarray:
    return img[..., 3] > 127


def silhouette_iou(a: np.ndarray | None, b: np.ndarray | None, tolerance_px: int = 0) -> float:
    """Intersection over union of the two alpha masks. With ``tolerance_px`` > 0 the symmetric
    match within that many pixels instead: the share of both masks' pixels that lie within
    ``tolerance_px`` (Chebyshev) of the other mask -- an edge one pixel off (a tapered leg, an
    anti-aliased border) matches, a missing or moved part does not."""
    if a is None or b is None:
        return 0.0
    ma, mb = _mask(a), _mask(b)
    if tolerance_px <= 0:
        union = np.logical_or(ma, mb).sum()
        return 1.0 if union == 0 else float(np.logical_and(ma, mb).sum() / union)
    total = int(ma.sum()) + int(mb.sum())
    if total == 0:
        return 1.0
    near_a, near_b = _dilate(ma, tolerance_px), _dilate(mb, tolerance_px)
    return float((np.logical_and(ma, near_b).sum() + np.logical_and(mb, near_a).sum()) / total)


def _dilate(mask: np.ndarray, k: int) -> np.ndarray:
    """``mask`` grown by ``k`` pixels in every direction (a (2k+1)^2 square)."""
    h, w = mask.shape
    padded = np.pad(mask, k)
    out = np.zeros_like(mask)
    for dy in range(2 * k + 1):
        for dx in range(2 * k + 1):
            out |= padded[dy:dy + h, dx:dx + w]
    return out


def _composite(img: np.ndarray) -> np.ndarray:
    px: np.ndarray = img.astype(np.float64)
    return px[..., :3] * (px[..., 3:4] / 255.0)


def view_similarity(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """0.5 * silhouette IoU + 0.5 * (1 - mean absolute colour difference over the union of
    both silhouettes, alpha-composited on black)."""
    if a is None or b is None:
        return 0.0
    union = np.logical_or(_mask(a), _mask(b))
    if not union.any():
        return 1.0
    diff = np.abs(_composite(a) - _composite(b))[union].mean() / 255.0
    return 0.5 * silhouette_iou(a, b) + 0.5 * (1.0 - float(diff))


def mean_colour_linear(img: np.ndarray | None) -> tuple[float, float, float] | None:
    if img is None:
        return None
    m = _mask(img)
    if not m.any():
        return None
    srgb = img[..., :3][m].astype(np.float64).mean(axis=0) / 255.0
    return cast(tuple[float, float, float], tuple(colour_math.srgb_to_linear(float(c)) for c in srgb))  # RGB


def colour_similarity(a: np.ndarray | None, b: np.ndarray | None, scale: float = 30.0) -> float:
    """1 - CIEDE2000(mean foreground colours) / scale, clipped to 0..1."""
    ca, cb = mean_colour_linear(a), mean_colour_linear(b)
    if ca is None or cb is None:
        return 0.0
    return max(0.0, 1.0 - colour_math.delta_e_linear(ca, cb) / float(scale))


def _views(metric: dict) -> list[str]:
    return list(metric.get("views", ["front", "side", "top", "close"]))


def metric_value(metric: dict, delivery: Path, reference: Path, frames: list[str]) -> tuple[float, dict]:
    """(value 0..1, per-image values) of one question's metric: the mean over its images."""
    per = _per_image(metric, delivery, reference, frames)
    value = float(np.mean(list(per.values()))) if per else 0.0
    return value, {k: round(v, 4) for k, v in per.items()}


def _per_image(metric: dict, delivery: Path, reference: Path, frames: list[str]) -> dict[str, float]:
    kind = metric["kind"]
    per: dict[str, float] = {}
    if kind == "frame_similarity":
        for name in frames:
            per[name] = view_similarity(_load(delivery, name), _load(reference, name))
        return per
    tolerance = int(metric.get("tolerance_px", 0))
    fn = {"silhouette_iou": lambda x, y: silhouette_iou(x, y, tolerance), "view_similarity": view_similarity,
          "colour_similarity": lambda x, y: colour_similarity(x, y, metric.get("delta_e_scale", 30.0))}[kind]
    for view in _views(metric):
        per[f"{view}.png"] = fn(_load(delivery, f"{view}.png"), _load(reference, f"{view}.png"))
    return per


def _bound(metric: dict, image: str) -> float:
    """A thresholded question's bound for one image: ``pass_at`` is a number for every image or
    {view: number} (a view it leaves out: 0.5)."""
    bound = metric.get("pass_at", 0.5)
    if isinstance(bound, dict):
        return float(bound.get(image.removesuffix(".png"), 0.5))
    return float(bound)


def _decide(q: Question, per: dict[str, float]) -> tuple[float, float, str]:
    """(score, value, reason) of one question from its per-image values. A thresholded
    question (the gate, or any binary one) is decided per view: it passes only when every
    image reaches its bound -- the worst view decides, never the mean (a delivery wrong in one
    view only fails it). Others score the mean."""
    if not per:
        return 0.0, 0.0, f"{q.metric['kind']}: no images"
    if q.gate or q.scale == "binary":
        margins = {name: v - _bound(q.metric, name) for name, v in per.items()}
        worst = min(margins, key=lambda n: (margins[n], n))
        value, bound = per[worst], _bound(q.metric, worst)
        score = 1.0 if margins[worst] >= 0 else 0.0
        return score, value, (f"{q.metric['kind']} worst view {worst.removesuffix('.png')} {value:.3f} "
                              f"{'>=' if score else '<'} {bound}")
    value = float(np.mean(list(per.values())))
    return round(value, 6), value, f"{q.metric['kind']} {value:.3f}"


def image_metric_judge(config: JudgeConfig, delivery_dir: Path, reference_dir: Path,
                       frames: list[str], input_dir: Path | None = None) -> VLResult:
    """Answer every question with its metric against the reference renders (``_decide``).
    With ``input_dir`` (the untouched input's renders), each answer also carries the input's own
    score and ``uninformative`` when that reaches ``UNINFORMATIVE_AT``: the metric cannot tell
    the work from no work on this task, and the scoring profile lets it lift nothing."""
    answers = {}
    for q in config.questions:
        if not q.metric:
            answers[q.id] = Answer(q.id, None, error="question has no image metric")
            continue
        per = _per_image(q.metric, delivery_dir, reference_dir, frames)
        score, _, reason = _decide(q, per)
        answer = Answer(q.id, score, reason, raw=json.dumps({k: round(v, 4) for k, v in per.items()}, sort_keys=True))
        if input_dir is not None:
            input_score = _decide(q, _per_image(q.metric, input_dir, reference_dir, frames))[0]
            answer.input_score = round(input_score, 6)
            answer.uninformative = input_score >= UNINFORMATIVE_AT
            if answer.uninformative:
                answer.reason += f" (uninformative: the untouched input scores {input_score:.3f})"
        answers[q.id] = answer
    return combine(config, answers, image_metric_judge_id())
