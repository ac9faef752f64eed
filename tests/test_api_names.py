"""API names that stay put: every named endpoint keeps its name and its parameters' names (and their order), so a
client written against the app keeps working. A parameter may be added after the others (optional, with a default),
never renamed, dropped or moved. A renamed input keeps its former name as an optional trailing parameter
(`page.Task`'s `aliases`): `/generate` took `num_return_sequences` before it took `sequences`."""

import httpx
from gradio_client import Client

# endpoint -> its parameters, as /gradio_api/info lists them (the API a client was written against)
DOCUMENTED = {
    "/attention": ["text", "role", "model", "lang", "width"],
    "/causal_lm": ["text", "model", "lang", "width"],
    "/checkpoint_scores": ["train", "test", "lang", "width"],
    "/classify": ["text", "lang", "width"],
    "/compare": ["text", "encoder", "decoder", "lang", "width"],
    "/explain_answer": ["question", "context", "layer", "head", "lang", "width"],
    "/explain_classify": ["text", "layer", "head", "lang", "width"],
    "/explain_entity": ["text", "aggregation", "entity", "layer", "head", "lang", "width"],
    "/explain_fill_mask": ["text", "mask", "guess", "layer", "head", "model", "top_k", "lang", "width"],
    "/explain_generation": ["prompt", "result", "sequence", "layer", "head", "model", "lang", "width"],
    "/explain_next_sentence": ["first", "second", "layer", "head", "model", "lang", "width"],
    "/explain_next_token": ["text", "token_id", "layer", "head", "model", "lang", "width"],
    "/explain_prompt_bert": ["result", "sentence", "layer", "head", "model", "lang", "width"],
    "/explain_prompt_gpt": ["result", "sentence", "layer", "head", "model", "lang", "width"],
    "/explain_tune_bert": ["result", "sentence", "layer", "head", "lang", "width"],
    "/explain_tune_gpt": ["result", "sentence", "layer", "head", "lang", "width"],
    "/fill_mask": ["text", "top_k", "model", "lang", "width"],
    "/fine_tune": ["model", "train", "test", "method", "steps", "learning_rate", "batch_size", "seed", "layers", "lang", "width"],
    "/generate": ["prompt", "strategy", "max_new_tokens", "temperature", "top_k", "top_p", "num_beams", "sequences", "seed", "no_repeat_ngram_size", "repetition_penalty", "model", "lang", "width", "num_return_sequences"],
    "/input_representation": ["first", "second", "model", "lang", "width"],
    "/logit_lens": ["text", "model", "lang", "width"],
    "/mlm_corruption": ["text", "seed", "model", "lang", "width"],
    "/ner": ["text", "aggregation", "lang", "width"],
    "/next_sentence": ["first", "second", "model", "lang", "width"],
    "/next_token": ["text", "temperature", "top_k", "top_p", "seed", "model", "lang", "width"],
    "/prompt_task": ["model", "train", "test", "template", "label_words", "shots", "seed", "calibrate", "lang", "width"],
    "/qa": ["question", "context", "lang", "width"],
    "/tutor_answer": ["question", "context", "model"],
    "/tutor_attention_summary": ["text", "role", "layer", "head", "model"],
    "/tutor_classify": ["text", "model"],
    "/tutor_compare": ["text", "word", "second", "encoder", "decoder"],
    "/tutor_entities": ["text", "aggregation", "model"],
    "/tutor_explain": ["task", "text", "second", "which", "guess", "label", "layer", "head", "model"],
    "/tutor_fill_mask": ["text", "top_k", "model"],
    "/tutor_generate": ["prompt", "strategy", "max_new_tokens", "temperature", "top_k", "top_p", "num_beams", "seed", "model"],
    "/tutor_glossary": ["lang"],
    "/tutor_logit_lens": ["text", "model"],
    "/tutor_models": [],
    "/tutor_next_sentence": ["first", "second", "model"],
    "/tutor_next_token": ["text", "temperature", "top_k", "top_p", "candidates", "seed", "model"],
    "/tutor_prompt": ["language"],
    "/tutor_prompt_task": ["train", "test", "template", "label_words", "model", "shots", "seed", "calibrate"],
}


def test_every_named_endpoint_keeps_its_name_and_its_parameters_in_order(app_url):
    listed = httpx.get(f"{app_url}gradio_api/info", timeout=30).json()["named_endpoints"]
    now = {name: [p["parameter_name"] for p in endpoint["parameters"]] for name, endpoint in listed.items()}
    missing = sorted(set(DOCUMENTED) - set(now))
    assert not missing, f"endpoints gone: {missing}"
    changed = {name: (params, now[name]) for name, params in DOCUMENTED.items() if now[name][:len(params)] != params}
    assert not changed, f"parameters renamed, dropped or moved (documented, now): {changed}"


def test_generate_takes_its_former_name_num_return_sequences(app_url):
    """A client written against `num_return_sequences` gets as many sequences as it asks for; `sequences` too."""
    client = Client(app_url, verbose=False)
    asked = dict(prompt="Hello", strategy="temperature", max_new_tokens=3, seed="7", api_name="/generate")
    former = client.predict(**asked, num_return_sequences=3)[-1]
    current = client.predict(**asked, sequences=2)[-1]
    assert len(former["texts"]) == 3 and len(current["texts"]) == 2
