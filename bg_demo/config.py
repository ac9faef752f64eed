"""Roles, model sources, device and limits: every setting of the app, read from the environment once."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path

from bg_demo import placement

ROLES = ("encoder", "sentiment", "ner", "qa", "decoder")

# role -> default Hub id (downloaded by users and Spaces; tests use tiny local models instead)
DEFAULT_MODELS = {
    "encoder": "google-bert/bert-base-uncased",
    "sentiment": "distilbert/distilbert-base-uncased-finetuned-sst-2-english",
    "ner": "dslim/bert-base-NER",
    "qa": "deepset/bert-base-cased-squad2",
    "decoder": "openai-community/gpt2",
}

# role -> the only Hub ids a user may pick in the UI (never free text, never remote code), the default first
ALLOWED_MODELS = {
    "encoder": (
        DEFAULT_MODELS["encoder"],
        "google-bert/bert-large-uncased",
        "google-bert/bert-base-cased",
        "distilbert/distilbert-base-uncased",
        "google-bert/bert-base-multilingual-cased",
        # a BERT body without MLM/NSP heads, kept on purpose: fill-mask and NSP say why they cannot use it
        "sentence-transformers/all-MiniLM-L6-v2",
    ),
    "sentiment": (DEFAULT_MODELS["sentiment"],),
    "ner": (DEFAULT_MODELS["ner"],),
    "qa": (DEFAULT_MODELS["qa"],),
    "decoder": (
        DEFAULT_MODELS["decoder"],
        "distilbert/distilgpt2",
        "openai-community/gpt2-medium",
        "skt/kogpt2-base-v2",
        "rinna/japanese-gpt2-small",
    ),
}


@dataclass(frozen=True)
class ModelInfo:
    """What a picker may say about an allowed model (data only: the UI words and formats it)."""

    language: str  # "en", "ko", "ja", or "multilingual" (mBERT: 104 languages)
    parameters: int  # about how many, heads included, as the model card rounds them


MODEL_INFO = {
    "google-bert/bert-base-uncased": ModelInfo("en", 110_000_000),
    "google-bert/bert-large-uncased": ModelInfo("en", 340_000_000),
    "google-bert/bert-base-cased": ModelInfo("en", 110_000_000),
    "distilbert/distilbert-base-uncased": ModelInfo("en", 66_000_000),
    "google-bert/bert-base-multilingual-cased": ModelInfo("multilingual", 179_000_000),
    "sentence-transformers/all-MiniLM-L6-v2": ModelInfo("en", 23_000_000),
    "distilbert/distilbert-base-uncased-finetuned-sst-2-english": ModelInfo("en", 67_000_000),
    "dslim/bert-base-NER": ModelInfo("en", 108_000_000),
    "deepset/bert-base-cased-squad2": ModelInfo("en", 108_000_000),
    "openai-community/gpt2": ModelInfo("en", 124_000_000),
    "distilbert/distilgpt2": ModelInfo("en", 82_000_000),
    "openai-community/gpt2-medium": ModelInfo("en", 355_000_000),
    "skt/kogpt2-base-v2": ModelInfo("ko", 125_000_000),
    "rinna/japanese-gpt2-small": ModelInfo("ja", 110_000_000),
}

# Hub id -> how its tokenizer must be loaded, as its model card says (`models.load_tokenizer` applies it; checked
# against transformers 5.23). "tokenizer_class" names the class to load with (default AutoTokenizer); the rest
# are `from_pretrained` keyword arguments, and two that 5.x's tokenizers-backed classes accept but ignore are
# carried out by the loader itself: do_lower_case (a Lowercase normalizer) and add_eos_token.
TOKENIZER_OPTIONS = {
    # its tokenizer.json names no special tokens; the card passes them (</s> both begins and ends a text)
    "skt/kogpt2-base-v2": {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "</s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>",
    },
    # SentencePiece (spiece.model, read with the `sentencepiece` and `protobuf` packages) through T5Tokenizer, which
    # would add 100 <extra_id_*> tokens and an </s> after every text; the card lower-cases ("due to some bug of
    # tokenizer config loading")
    "rinna/japanese-gpt2-small": {
        "tokenizer_class": "T5Tokenizer", "do_lower_case": True, "extra_ids": 0, "add_eos_token": False,
    },
}


@dataclass(frozen=True)
class Limits:
    """Server-side caps on what one request may ask for."""

    max_chars: int = 2_000  # one text field (sentence, question, prompt)
    max_context_chars: int = 20_000  # a QA context; it is windowed, so it may exceed the model's length
    max_top_k: int = 20
    max_masks: int = 20
    qa_window_tokens: int = 384  # question + context per window, special tokens included
    qa_stride: int = 128  # tokens shared by neighbouring windows
    qa_max_answer_tokens: int = 30
    qa_n_best: int = 5  # answers shown: the best one and the runners-up
    max_prompt_chars: int = 6_000  # a GPT-2 prompt: its 1024-token context is the binding limit
    max_new_tokens: int = 256
    max_beams: int = 8
    max_sequences: int = 5
    generation_seconds: float = 30.0  # a generation stops this long after it starts running, whatever it asked for
    batch_rows: int = 32  # rows the decoding engine runs at once on a CPU; later requests wait for a free row
    # on CUDA: a step of GPT-2 is latency-bound up to far more rows (the weights are read once a step for all), so a
    # class of 64 runs in one wave, not two (`batch_rows`)
    gpu_batch_rows: int = 64
    client_rows: int = 10  # rows one client (session) may hold while others wait: two 5-sequence requests
    # An explanation runs ~36 passes with gradients (32 integrated-gradients steps, gradient x input, attention,
    # baseline) over its whole input. On 2 vCPUs one forward and backward pass of bert-base or GPT-2 takes 0.84 s
    # at 128 tokens, 1.6 s at 256 and 2.5 s at 384 (bench/limits.py's explain phase, measured idle), so it reads
    # at most 256 tokens: a pass never holds the device past ~1.7 s (others go between two) and the whole takes
    # under a minute. Its steps run in chunks of at most `explain_chunk_tokens` tokens (rows x tokens), and it
    # stops with a message once its own passes (not its waits) have taken `explain_seconds`.
    explain_tokens: int = 256
    explain_chunk_tokens: int = 256
    explain_seconds: float = 90.0
    # The fine-tune-or-prompt page (`bg_demo.backend.prompting`, `bg_demo.backend.finetune`): a task's tables, what a
    # prompt may hold, and what one fine-tuning run may ask for. A run's steps take the device one at a time, between
    # other students' calls; 200 steps of a batch of 32 at 128 tokens is the most one run may hold it, in turns.
    task_rows: int = 64  # rows of the train table, and of the test table
    task_text_chars: int = 300  # one sentence of a table
    task_tokens: int = 128  # one sentence, in the model's tokens, special tokens included
    task_labels: int = 8  # distinct labels of a task
    label_chars: int = 24  # one label, or one label word
    max_shots: int = 8  # examples written into a few-shot prompt
    template_chars: int = 300
    continuation_tokens: int = 6  # what GPT-2 writes after a prompt, greedily, to show it continue the text
    tune_steps: int = 200
    tune_batch: int = 32
    tune_layers: int = 4  # the most top layers a "layers" run trains
    tune_seconds: float = 600.0  # a run stops itself (keeping what it learnt) this long after it starts


# What the loaded models' weights (parameters + buffers) may take at once before the least recently used ones
# are unloaded; BG_DEMO_MEMORY_BUDGET_GB overrides it (GiB, 2**30 bytes). 6 GiB suits a free 16 GB Space: the five
# roles' defaults take ~2.1 GB in float32 (bert-base 0.44, sentiment 0.27, NER 0.43, QA 0.43, GPT-2 0.50), so a
# class may also pick bert-large (1.34) and gpt2-medium (1.42) and a few small ones before anything is unloaded,
# and ~10 GB stay for what grows with use: the Python/torch/Gradio process (~1.5 GB), the decoding engine's KV
# cache (GPT-2, 32 rows of 1,024 tokens: 2.4 GB; gpt2-medium: 6.4 GB at worst), integrated-gradients batches,
# attention maps, and the model being loaded while the budget is full (it is measured once it is in memory).
DEFAULT_MEMORY_BUDGET_GB = 6.0


# Each role's weights on a CUDA GPU; elsewhere (the CPU, Apple's MPS) every role is float32. BG_DEMO_DTYPE=float32|
# float16|bfloat16 sets one for every role on any device: on the CPU it rehearses a GPU's precision (the parity tests
# run so, against float32 references), slower there, not faster. The decoder is float16: its work is decoding a whole
# class at once, bound by how fast the weights and the KV cache are read, and half the bytes are half the cache (32 rows
# of 1,024 tokens: GPT-2 1.2 GB instead of 2.4, gpt2-medium 3.2 instead of 6.4), while what its tabs show survives:
# logits are turned into probabilities in float32, and fp16's 11-bit mantissa keeps a shown probability to its third
# digit. The BERT roles stay float32: each request is one forward pass of a few milliseconds on any GPU, so half
# precision would buy nothing there, and their tabs print probabilities, attention to three decimals and attributions
# whose completeness gap (integrated gradients, whose gradients fp16 would round) is printed beside them. bfloat16 keeps
# only 8 bits (a probability to about two digits) and a T4, a common Space GPU, has no fast bfloat16.
CUDA_DTYPES = {"encoder": "float32", "sentiment": "float32", "ner": "float32", "qa": "float32", "decoder": "float16"}
DTYPES = ("float32", "float16", "bfloat16")


@dataclass(frozen=True)
class Settings:
    sources: dict[str, str]  # role -> Hub id or local folder
    device: str  # "cuda", "mps" or "cpu"
    dtypes: dict[str, str]  # role -> torch dtype name of its weights (see CUDA_DTYPES)
    model_dir: str = ""  # BG_DEMO_MODEL_DIR: DIR/<role> and DIR/hub/<org>--<name> hold local copies
    memory_budget: int = int(DEFAULT_MEMORY_BUDGET_GB * 2**30)  # bytes of weights kept loaded at once

    def source(self, role: str) -> str:
        return self.sources[role]

    def dtype(self, role: str) -> str:
        return self.dtypes[role]

    def location(self, model_id: str) -> str:
        """Where a model loads from: an allowed Hub id from its local copy when there is one (see `hub_folder`),
        else from the Hub or its cache; a local folder is its own location."""
        if self.model_dir and model_id in ALLOWED_IDS:
            folder = hub_folder(self.model_dir, model_id)
            if folder.is_dir():
                return str(folder)
        return model_id


ALLOWED_IDS = frozenset(model for models in ALLOWED_MODELS.values() for model in models)
# short name -> allowed Hub id: the part after the org, which is also the older un-namespaced Hub name of the models
# that have one (gpt2, bert-base-uncased, distilgpt2); each short name is one model's (a test checks it)
SHORT_NAMES = {model.split("/")[-1]: model for model in sorted(ALLOWED_IDS)}


def hub_id(model_id):
    """The allowed Hub id `model_id` names: an allowed id as it is, or the one whose short name it is
    (`bert-base-uncased`, `kogpt2-base-v2`); anything else unchanged, for the allowlist to refuse."""
    return SHORT_NAMES.get(model_id, model_id) if isinstance(model_id, str) else model_id


def model_for(role: str, lang: str) -> str | None:
    """The allowed model of `role` to pick for text in `lang` ("en", "ko", "ja"): the first that reads that
    language, else the first multilingual one; None when the role's models read other languages only."""
    for wanted in (lang, "multilingual"):
        for model in ALLOWED_MODELS[role]:
            if MODEL_INFO[model].language == wanted:
                return model
    return None


def is_local(source: str) -> bool:
    """Whether a role's model source is a folder on the server (BG_DEMO_<ROLE>, BG_DEMO_MODEL_DIR) rather than a Hub id."""
    if source in ALLOWED_IDS:
        return False
    return Path(source).is_absolute() or source.startswith((".", "~")) or Path(source).is_dir()


NAME_FILE = "bg_demo.json"  # in a model's folder: {"model_id": its name}, written by `download` and `tiny-models`


def public_name(source: str) -> str:
    """What a model is called in anything a client receives: a Hub id as it is; a local folder by the name its
    `NAME_FILE` gives (the Hub id a `download` saved there), else by the folder's own name, never its path (which
    would show how the server's disk is laid out); a folder named for its role (BG_DEMO_MODEL_DIR's layout) with no
    such file by its architecture too, so that a model is never called "encoder"."""
    if not is_local(source):
        return source
    return _folder_name(str(source))


@functools.lru_cache(maxsize=256)  # a folder's name is read once: what the server loaded stays what it loaded
def _folder_name(source: str) -> str:
    folder = Path(source).expanduser()
    named = _read_json(folder / NAME_FILE).get("model_id")
    if isinstance(named, str) and 0 < len(named) <= 96 and named.count("/") <= 1 and not named.startswith(
            (".", "/", "~")):
        return named
    name = folder.name or source
    kind = _read_json(folder / "config.json").get("model_type")
    return f"{kind} ({name})" if name in ROLES and isinstance(kind, str) and kind.isidentifier() else name


def _read_json(path: Path) -> dict:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def name_folder(folder, model_id: str) -> None:
    """Write a model folder's name (`NAME_FILE`): what the app calls the model loaded from it."""
    (Path(folder) / NAME_FILE).write_text(json.dumps({"model_id": model_id}) + "\n", encoding="utf-8")


def hub_folder(model_dir, model_id: str) -> Path:
    """The local copy of Hub model `org/name`: DIR/hub/org--name (written by `python -m bg_demo download DIR --all`)."""
    return Path(model_dir) / "hub" / model_id.replace("/", "--")


def memory_budget(env=os.environ) -> int:
    """BG_DEMO_MEMORY_BUDGET_GB (GiB, a positive number) in bytes, else DEFAULT_MEMORY_BUDGET_GB."""
    value = env.get("BG_DEMO_MEMORY_BUDGET_GB", "").strip()
    try:
        gib = float(value) if value else DEFAULT_MEMORY_BUDGET_GB
    except ValueError:
        gib = float("nan")
    if not gib > 0:
        raise ValueError(f"BG_DEMO_MEMORY_BUDGET_GB must be a positive number of GiB, e.g. 6; got {value!r}")
    return int(gib * 2**30)


def model_source(role: str, env=os.environ) -> str:
    """BG_DEMO_<ROLE> if set, else BG_DEMO_MODEL_DIR/<role> if that folder exists, else the Hub default."""
    if role not in DEFAULT_MODELS:
        raise KeyError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    explicit = env.get(f"BG_DEMO_{role.upper()}", "").strip()
    if explicit:
        return explicit
    model_dir = env.get("BG_DEMO_MODEL_DIR", "").strip()
    if model_dir and (Path(model_dir) / role).is_dir():
        return str(Path(model_dir) / role)
    return DEFAULT_MODELS[role]


def choose_device(env=os.environ) -> str:
    """BG_DEMO_DEVICE if set, else CUDA, then Apple MPS, then CPU."""
    wanted = env.get("BG_DEMO_DEVICE", "").strip().lower()
    if wanted:
        return wanted
    import torch  # deferred: importing config must stay cheap

    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def dtypes(device: str, env=os.environ) -> dict[str, str]:
    """Each role's dtype on `device`: BG_DEMO_DTYPE for every role when it is set, on any device; else CUDA_DTYPES
    on CUDA and float32 elsewhere."""
    wanted = env.get("BG_DEMO_DTYPE", "").strip().lower()
    if wanted and wanted not in DTYPES:
        raise ValueError(f"BG_DEMO_DTYPE must be one of {', '.join(DTYPES)}; got {wanted!r}")
    if wanted:
        return dict.fromkeys(ROLES, wanted)
    return dict(CUDA_DTYPES) if device.startswith("cuda") else dict.fromkeys(ROLES, "float32")


@functools.cache
def settings() -> Settings:
    """The settings, read from the environment on first use (tests call `settings.cache_clear()`)."""
    device = choose_device()
    return Settings(
        sources={role: model_source(role) for role in ROLES},
        device=device,
        dtypes=dtypes(device),
        model_dir=os.environ.get("BG_DEMO_MODEL_DIR", "").strip(),
        memory_budget=memory_budget(),
    )


LIMITS = Limits()


def batch_rows(device: str) -> int:
    """Rows the decoding engine runs at once on `device` (the GPU's own limit on CUDA)."""
    return LIMITS.gpu_batch_rows if str(device).startswith("cuda") else LIMITS.batch_rows


ENGINE_ROWS = max(LIMITS.batch_rows, LIMITS.gpu_batch_rows)  # the most rows an engine runs at once, on any device


def cuda_graphs(env=os.environ) -> bool:
    """Whether the decoding step on CUDA runs as a captured CUDA graph: BG_DEMO_CUDA_GRAPHS=1 or 0 (the GPU check runs
    both, side by side); unset, yes, except on ZeroGPU. There each generation is one call of a fresh worker, which
    would capture its graphs again (one per bucket its batch passes through) for that call alone: whether that pays
    for itself within a call is not measured yet (docs/gpu.md), so a Space decodes uncaptured unless it sets 1."""
    wanted = env.get("BG_DEMO_CUDA_GRAPHS", "").strip().lower()
    if not wanted:
        return not placement.requested(env)
    return wanted not in ("0", "false", "no", "off")
