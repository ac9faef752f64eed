"""English: the source text of every user-facing string; `ko.py` and `ja.py` hold the same keys."""

EN = {
    "app.heading": "# BERT & GPT-2, side by side",
    "app.intro": (
        "An interactive guide to the two pillars of pre-trained transformers: **BERT** reads a whole "
        "sentence at once and fills in blanks; **GPT-2** reads left to right and writes the next word. "
        "Pick a tab, try an example, then type your own text."
    ),
    "app.loading": "Loading the {role} model ({model}); the first request takes a little longer…",
    "app.role.encoder": "encoder",
    "app.role.decoder": "decoder",
    "app.role.sentiment": "sentiment",
    "app.role.ner": "named-entity",
    "app.role.qa": "question-answering",
    "app.gpu_service": (
        "ZeroGPU, the shared GPU service this app runs on, did not run this request. In its own words: {message}"
    ),
    "app.gpu_quota": (
        "ZeroGPU, the shared GPU service this app runs on, would not run this: the daily GPU time it counts for you is "
        "spent. {when} {sign_in} In its own words: {message}"
    ),
    "app.gpu_quota.when": "It comes back in about {hours} h {minutes} min.",
    "app.gpu_quota.when_unknown": "ZeroGPU does not say when it comes back.",
    "app.gpu_quota.sign_in": (
        "You are not signed in, so ZeroGPU counts one quota for everyone on your network (a whole school behind one "
        "router shares it): sign in with Hugging Face on the Start page to get one of your own."
    ),
    "gpu.note.quota": (
        "ZeroGPU would not give this run a GPU: your daily GPU time is spent. It ran on this Space's own CPU instead, "
        "which is slower."
    ),
    "gpu.note.busy": "ZeroGPU had no GPU free, so this run went to this Space's own CPU instead, which is slower.",
    "gpu.note.declared": (
        "This run asked ZeroGPU for {seconds} s of GPU time; this session has asked for {total} s so far. ZeroGPU "
        "gives a visitor {anonymous} s a day, {signed_in} s when signed in."
    ),
    "gpu.sign_in": (
        "This Space runs its heavier work (generation, explanations, fine-tuning) on ZeroGPU, which counts GPU time "
        "per visitor: {anonymous} s a day without signing in, shared by everyone on the same network (a whole class "
        "behind one school router), or {signed_in} s of your own once signed in. The BERT tasks and the attention "
        "views run on the Space's CPU and cost none of it."
    ),
    "app.unexpected": "Something went wrong on the server while running this request. Try again, or try a shorter text.",
    "app.kept_result": "The result below is still the one before: it is not from these inputs.",
    "common.raw": "Raw result (JSON, as the API returns it)",
    "common.summary": "Summary",
    "common.examples": "Examples: click one to load and run it",
    "common.tokens": "Tokens the model sees",
    "common.model.encoder": "BERT model (encoder)",
    "common.model.decoder": "GPT-2 model (decoder)",
    "why.last": "last",
    "generate.strategy.greedy": "greedy",
    "generate.strategy.beam": "beam",
    "generate.strategy.temperature": "temperature",
    "generate.strategy.top_k": "top_k",
    "generate.strategy.top_p": "top_p",
    "ner.aggregation.none": "none",
    "ner.aggregation.simple": "simple",
    "ner.aggregation.first": "first",
    "ner.aggregation.average": "average",
    "ner.aggregation.max": "max",
    "start.step.1": "1 · BERT fills in the blank (masked language model)",
    "start.step.2": "2 · Fine-tuned BERT: is a review positive or negative?",
    "start.step.3": "3 · Fine-tuned BERT: names of people, places, organisations",
    "start.step.4": "4 · Fine-tuned BERT: answers from a text",
    "start.step.5": "5 · Does sentence B follow sentence A? (NSP)",
    "start.step.6": "6 · GPT-2 writes: greedy, beam, sampling",
    "start.step.7": "7 · One token at a time: the next-token lab",
    "start.step.8": "8 · Inside both: attention heads",
    "start.step.9": "9 · Bidirectional vs causal, side by side",
    "start.step.10": "10 · How BERT was trained: hide 15% of the words",
    "start.step.11": "11 · How GPT-2 was trained: predict every next token",
    "start.step.12": "12 · Fine-tune or prompt? GPT-2 learns the task from a few examples",
    # fill-mask
    "fill_mask.tab": "Fill-mask",
    "fill_mask.about": (
        "BERT was pre-trained by hiding words and guessing them back from **both** sides of the gap. "
        "Write `[MASK]` wherever a word is missing (any number of times) and see its top guesses with "
        "their probabilities. Try changing a word *after* the mask: the guesses change, because BERT "
        "reads the right-hand context too."
    ),
    "fill_mask.text": "Sentence with one or more [MASK]",
    "fill_mask.top_k": "Guesses per mask (top-k)",
    "fill_mask.filled": "Sentence with the best guess for each mask",
    "fill_mask.plot": "Top guesses per mask",
    "fill_mask.run": "Fill the masks",
    # sentiment
    "classify.tab": "Sentiment",
    "classify.about": (
        "A BERT-style encoder fine-tuned on movie reviews (SST-2) turns the vector of the `[CLS]` token "
        "into one probability per label. Try a mixed review, or a negation (\"not bad at all\"), and see "
        "how sure the model is."
    ),
    "classify.text": "Text to classify",
    "classify.scores": "Probability of each label",
    "classify.label.POSITIVE": "POSITIVE",
    "classify.label.NEGATIVE": "NEGATIVE",
    "classify.run": "Classify",
    # entities
    "ner.tab": "Entities",
    "ner.about": (
        "A BERT model fine-tuned for named entities tags every WordPiece token with a BIO label "
        "(B- begins an entity, I- continues it, O is outside). The aggregation strategy decides how "
        "tokens become entities: **none** shows raw tokens (with `##` pieces), **simple** merges "
        "neighbours, **first / average / max** first make each word agree on one label, so an entity "
        "is always made of whole words."
    ),
    "ner.text": "Text",
    "ner.aggregation": "Aggregation strategy",
    "ner.entities": "Entities found",
    "ner.table": "Entities (label, text, score, character span)",
    "ner.token_tags": "Each token's own label, before aggregation",
    "ner.run": "Find entities",
    "ner.table_headers": "label|text|score|start|end",
    # question answering
    "qa.tab": "Q&A",
    "qa.about": (
        "An extractive QA model does not write an answer: it points at where the answer **starts** and "
        "**ends** in the context. Long contexts are read in overlapping windows. When the score for the "
        "`[CLS]` token beats every span, the model is saying \"the answer is not in this text\"."
    ),
    "qa.question": "Question",
    "qa.context": "Context (long texts are read in overlapping windows)",
    "qa.answer": "Answer",
    "qa.highlight": "The answer inside its context",
    "qa.alternatives": "Best spans, best first",
    "qa.run": "Answer",
    "qa.table_headers": "answer|score|start|end|window",
    "qa.found": "**{answer}** (probability {score}; read in {windows} window{plural})",
    "qa.none": (
        "**No answer**: the model thinks this context does not answer the question (no-answer score "
        "{null:.2f} beats the best span, \"{best}\", at {best_logit:.2f})."
    ),
    "qa.none_no_span": "**No answer**: the model found no span in the context.",
    # question answering: where the answer looks (the attention of its window, from its first and last tokens)
    "qa.attention.title": "Where the answer looks",
    "qa.attention.about": (
        "The attention of the window the answer came from, read from the answer's **first** and **last** tokens: "
        "at the layer and head you pick, how much each of the two attends to every token of that window (the "
        "question, the context, `[CLS]` and `[SEP]`). It shows where the model looks, not why it answered; "
        "`[CLS]` and `[SEP]` often take most of it."
    ),
    "qa.attention.run": "Show where the answer looks",
    "qa.attention.layer": "Layer (0 = first)",
    "qa.attention.head": "Head (0 = first)",
    "qa.attention.plot": "Attention from the answer",
    "qa.attention.read": "Window {window} of {windows}, {n} tokens; the answer is tokens {start}–{end} of it.",
    "qa.attention.no_answer": (
        "There is no answer to look from: the model said this context does not answer the question. Ask another "
        "question, or give a context that holds the answer, and click “Answer” again."
    ),
    "qa.attention.not_in_window": (
        "The answer (characters {start}–{end}) is not a span of the context's tokens in window {window}: pass the "
        "window and the offsets the answer came with (`alternatives[0].window`, `start`, `end`)."
    ),
    "qa.attention.run_first": "Click “Answer” first: this view reads the attention of the answer on screen.",
    "fig.qa_attention.title": "Where the answer looks: layer {layer}, head {head}",
    "fig.qa_attention.subtitle": "window {window} of {windows} ({n} tokens); answer: {answer}",
    "fig.qa_attention.from_start": "from the start, {token}",
    "fig.qa_attention.from_end": "from the end, {token}",
    "fig.qa_attention.part.special": "special",
    "fig.qa_attention.part.question": "question",
    "fig.qa_attention.part.context": "context",
    "fig.qa_attention.answer": "answer",
    "fig.qa_attention.keys": "tokens of the window (keys)",
    "fig.qa_attention.weight": "attention weight",
    "fig.qa_attention.alt": "{title}: two lines over the {n} tokens of window {window}, the attention from the answer's first token and from its last. The first attends most to '{start_key}' ({start_weight}), the last to '{end_key}' ({end_weight}).",
    # next sentence
    "nsp.tab": "Next sentence",
    "nsp.about": (
        "BERT's second pre-training task: given sentence A and sentence B, did B really follow A in "
        "the book, or was it picked at random? The `[CLS]` vector feeds a small two-way classifier. "
        "Segment ids (0 for A, 1 for B) tell the model which sentence each token belongs to."
    ),
    "nsp.first": "Sentence A",
    "nsp.second": "Sentence B",
    "nsp.scores": "Does B follow A?",
    "nsp.is_next": "IsNext",
    "nsp.not_next": "NotNext",
    "nsp.segments": "Tokens coloured by segment (A = 0, B = 1)",
    "nsp.run": "Predict",
    # generation (GPT-2)
    "generate.tab": "Generate",
    "generate.about": (
        "GPT-2 writes one token at a time, each time choosing from a probability distribution over "
        "its 50,257 tokens. **Greedy** always takes the most likely token (and often loops); **beam "
        "search** keeps the few best partial texts and returns the most probable whole; **sampling** "
        "draws at random, with **temperature** sharpening (below 1) or flattening (above 1) the "
        "distribution, **top-k** keeping only the k likeliest tokens and **top-p** the smallest set "
        "whose probabilities add up to p. The same seed gives the same sample."
    ),
    "generate.prompt": "Prompt (empty = start from the beginning-of-text token)",
    "generate.strategy": "Decoding strategy",
    "generate.max_new_tokens": "New tokens (1–{high})",
    "generate.temperature": "Temperature",
    "generate.top_k": "Top-k",
    "generate.top_p": "Top-p",
    "generate.num_beams": "Beams",
    "generate.num_return_sequences": "Sequences side by side",
    "generate.seed": "Seed (empty = a new random one each time, shown below)",
    "generate.seed_empty": "random",
    "generate.repetition": "Repetition controls",
    "generate.no_repeat": "No repeated n-gram of size (0 = off)",
    "generate.penalty": "Repetition penalty (1 = off)",
    "generate.run": "Generate",
    "generate.stop": "Stop",
    "generate.output": "Generated text, each new token coloured by how likely the model found it (hover for rank)",
    "generate.beams": "Beam search, step by step",
    "generate.sequence": "Sequence {n}",
    "generate.status": "{tokens} new token{plural} in {seconds:.1f} s ({rate:.1f} tokens/s){seed} · {why}",
    "generate.status_sequences": (
        "{sequences} sequences × {each} new token{plural} in {seconds:.1f} s ({rate:.1f} tokens/s in all){seed} · {why}"
    ),
    "generate.status_seed": " · seed {seed}",
    "generate.streaming": "writing… {tokens} new token{plural} so far{seed}",
    "generate.streaming_sequences": "writing… {sequences} sequences × {each} new token{plural} so far{seed}",
    "generate.waiting": "waiting for a free place: {n} request{plural} ahead of yours…",
    "generate.why.end of text": "stopped at the end-of-text token",
    "generate.why.max new tokens": "stopped at the new-token limit",
    "generate.why.time budget": "stopped at the time limit of {seconds:.0f} s",
    "generate.why.stopped": "stopped after {tokens} token{plural} (Stop pressed)",
    "generate.why.mixed": "{ended} of {sequences} stopped at the end-of-text token; the rest {rest}",
    "generate.rest.max new tokens": "at the new-token limit",
    "generate.rest.time budget": "at the time limit of {seconds:.0f} s",
    "generate.rest.stopped": "when Stop was pressed",
    # next-token lab
    "lab.tab": "Next token",
    "lab.page": (
        "Generation one token at a time, up close: the **lab** shows the distribution GPT-2 chooses the next "
        "token from and lets you take each step yourself; the **logit lens** shows its guess after every layer."
    ),
    "lab.sub": "Next-token lab",
    "lab.about": (
        "One step of generation, slowed down. The bars are the model's top candidates for the next "
        "token after temperature; the black marks are its own probabilities at temperature 1. Grey "
        "bars are cut by top-k, orange ones by top-p (which keeps tokens until the green cumulative "
        "line reaches p). Pick a token, take the greedy one or sample, and watch the text grow."
    ),
    "lab.text": "Text so far",
    "lab.top_k": "Top-k (0 = off)",
    "lab.top_p": "Top-p (1 = off)",
    "lab.show": "Show the next-token distribution",
    "lab.greedy": "Take the greedy token",
    "lab.sample": "Sample one",
    "lab.pick": "Or pick a candidate",
    "lab.append": "Append the picked token",
    "lab.context": "The text now",
    "lab.history": "Steps taken",
    "lab.history_headers": "step|token|rank|probability|how",
    "lab.how.greedy": "greedy",
    "lab.how.picked": "picked",
    "lab.how.sample": "sampled with seed {seed}",
    "lab.plot": "Candidates for the next token",
    "lab.start_first": "Show the distribution for a text first.",
    # logit lens
    "lens.sub": "Logit lens",
    "lens.about": (
        "What would GPT-2 predict if it stopped after layer 0, 1, 2, …? Each row reads one layer's hidden "
        "state through the final layer norm and the output head. Low layers often just echo the input "
        "token; the prediction takes shape in the upper layers."
    ),
    "lens.text": "Text",
    "lens.run": "Look through each layer",
    "lens.plot": "Prediction by layer and position",
    "lens.truncated": "Only the first {n} tokens are shown.",
    # pretraining lab
    "pre.tab": "Pretraining",
    "pre.about": (
        "How BERT and GPT-2 learned from raw text, with no labels: BERT by guessing hidden words and "
        "by telling whether two sentences belong together, GPT-2 by predicting every next token. "
        "Each panel runs the real objective on your sentence with the loaded model."
    ),
    "pre.mlm": "Masked LM (BERT)",
    "pre.mlm.about": (
        "BERT picks **15%** of the tokens as targets. Of those, **80%** become `[MASK]`, **10%** a random "
        "token and **10%** stay unchanged; the loss is computed only at the targets (label −100 elsewhere "
        "means \"ignore\"). Why not always `[MASK]`? `[MASK]` never appears when BERT is used later, so the "
        "model must also learn to check tokens that look normal, and it cannot tell which ones to check."
    ),
    "pre.text": "Sentence",
    "pre.seed": "Seed (which tokens get picked)",
    "pre.corrupt": "Corrupt and predict",
    "pre.reroll": "Another seed",
    "pre.tokens": "Original, corrupted input and labels",
    "pre.token_headers": "position|original|model sees|label|target",
    "pre.targets": "The model's guesses at each target",
    "pre.target_headers": "position|original|model sees|treatment|top guesses|p(original)|−log p",
    "pre.treatment.mask": "replaced by [MASK]",
    "pre.treatment.random": "replaced by a random token",
    "pre.treatment.keep": "kept as it was",
    "pre.loss": "MLM loss on this sentence: **{loss:.3f}** (mean −log p of the original tokens at the {n} target{plural})",
    "pre.nsp": "Next sentence (BERT)",
    "pre.nsp.about": (
        "Half of BERT's training pairs were real neighbours (IsNext), half had sentence B drawn from "
        "another document (NotNext). Try a true continuation, then swap in a random sentence."
    ),
    "pre.swap": "Swap in a random sentence B (NotNext)",
    "pre.embeddings": "Input embeddings (BERT)",
    "pre.embeddings.about": (
        "BERT's input vector for each token is the **sum** of three learned vectors: the token's own "
        "embedding, a segment embedding (sentence A or B) and a position embedding (0, 1, 2, …), then "
        "a layer norm. The table shows the ids; the chart shows how long each vector is."
    ),
    "pre.first": "Sentence A",
    "pre.second": "Sentence B (optional)",
    "pre.show": "Show the input representation",
    "pre.embedding_headers": "token|token id|segment id|position id|‖token‖|‖segment‖|‖position‖|‖sum‖",
    "pre.ids": "Ids and embedding sizes",
    "pre.norms": "Embedding sizes",
    "pre.causal": "Causal LM (GPT-2)",
    "pre.causal.about": (
        "GPT-2 is trained to predict every next token from the ones before it (teacher forcing: it always "
        "reads the true text, never its own guesses). The loss is the mean −log p of the true next tokens; "
        "perplexity = exp(loss) is how many equally likely choices the model is as unsure as."
    ),
    "pre.causal_run": "Score every next token",
    "pre.causal_headers": "input so far|target|p|−log p|rank",
    "pre.causal_table": "Teacher forcing, position by position",
    "pre.causal_plot": "Loss at each position",
    "pre.causal_loss": "Mean loss **{loss:.3f}** nats · perplexity **{perplexity:.1f}**",
    # why: attention from the prediction beside attribution of it
    "why.title": "Why? Attention from the prediction, and what the prediction depends on",
    "why.about": (
        "Two views of the prediction above, on the same tokens. **Attention**: where the prediction's position "
        "(the `[MASK]`, `[CLS]` or the last token) reads from, at one layer. **Attribution**: how much the "
        "probability shown depends on each input token, by gradient × input and by integrated gradients "
        "(from a baseline where every ordinary token is padding). Blue is negative, vermillion positive; each "
        "row is scaled to its own largest value. It takes a few seconds: it runs only when you ask."
    ),
    "why.layer": "Layer of the attention",
    "why.head": "Head",
    "why.mean": "mean of the heads",
    "why.head_n": "head {head}",
    "why.run": "Explain this prediction",
    "why.plot": "Attention and attribution, token by token",
    "why.spearman": (
        "Rank correlation (Spearman) between the attention from the prediction (layer {layer}, {head}) and the "
        "size of the integrated gradients, over {n} tokens: **ρ = {rho:+.2f}**."
    ),
    "why.completeness": (
        "Integrated gradients add up to {total:.4f}, the probability {p:.4f} minus {base:.4f} at the baseline "
        "(off by {gap:.1e} with {steps} steps)."
    ),
    "why.disagree": (
        "Why the two can disagree: attention is one step inside one layer, it says where a position reads from, "
        "not how much the output depends on what it read, since the value vectors, the other heads, the later "
        "layers and the residual stream all stand in between. Attribution measures the output's sensitivity "
        "to each token directly, so a token can draw much attention and matter little (often `[SEP]`), or the reverse."
    ),
    "why.link": "[Open this layer and head in the Attention tab]({url})",
    "why.mask": "Which [MASK] (1 = the first)",
    "why.guess": "Which guess (1 = the best)",
    "why.entity": "Which entity (1 = the first in the table)",
    "why.sequence": "Which sequence (1 = the first): its last token is explained",
    "why.sequence_range": "Pick a sequence between 1 and {n}: the generation on screen has {n}.",
    # links
    "link.button": "Link to this",
    "link.placeholder": "a link that opens this tab with these inputs (copied when you click)",
    "link.label": "Link to share",
    "link.copied": "✓ Link copied: paste it anywhere.",
    "link.ready": "✓ Link ready: copy it from the box.",
    "lesson.step": "Step {k} of {n}",
    "lesson.english_only": "this step's model reads English only, so its sentence is English",
    "lesson.models": "models: {models}",
    "lesson.previous": "← Previous",
    "lesson.next": "Next →",
    "lesson.title": "Your own lesson: pages in your order, in one link",
    "lesson.how": "Set up a page as the class should see it and press **Link to this**; do that for each step. Then press **Fill in the links I made** (or paste links, one per line), write a note for the class after any link (on its line, after a space), and press **Make the lesson link**. Opening it shows the steps one at a time (Step 1 of n, your note, Previous and Next), each run as the guided path runs, in the language you made it in. At most 12 steps; a note at most 200 characters.",
    "lesson.steps": "Steps: a page's link on each line, then its note (optional)",
    "lesson.steps_placeholder": "…/?tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1 Which guess comes first?",
    "lesson.fill": "Fill in the links I made",
    "lesson.make": "Make the lesson link",
    "lesson.label": "Lesson link",
    "lesson.placeholder": "the lesson's link appears here: share it with the class",
    "lesson.empty": "There are no links yet: paste a page's link (from its Link to this button), one per line.",
    "lesson.not_a_page": "Line {row} does not start with a link to a page of this app ({link}): copy it from the page's Link to this button.",
    "lesson.note_long": "The note on line {row} is {count} characters; a note holds at most {most}. Shorten it.",
    "lesson.too_many": "A lesson holds at most {most} steps; this one has {count}. Delete lines, or make two lessons.",
    "lesson.too_long": "This lesson's link would be {count} characters; it may be at most {most}. Shorten the notes or the pages' texts, or make two lessons.",
    "lesson.too_much": "This lesson's pages hold {count} characters of text; a lesson may hold at most {most}. Shorten the pages' texts, or make two lessons.",
    "lesson.damaged": "This lesson's link is damaged or cut short, so its steps cannot be read. Ask for the link again and copy it whole.",
    # start here
    "tutor.tab": "AI tutor's tools",
    "tutor.page": (
        "### The AI tutor's tools\n\n"
        "This page holds the endpoints an AI assistant calls through the app's MCP server "
        "(`/gradio_api/mcp/`): fill a mask, classify, find entities, answer, generate, look inside. "
        "The API link at the foot of the page lists them with what each takes; the app's own pages are in the "
        "navigation "
        "of the [Start page](./)."
    ),
    "start.tab": "Start here",
    "start.intro": (
        "**BERT** (Google, 2018) and **GPT-2** (OpenAI, 2019) are both stacks of transformer layers "
        "trained on plain text with no labels. They differ in one decision, *which tokens each token may "
        "look at*, and that decides what they are good for."
    ),
    "start.table": (
        "| | BERT | GPT-2 |\n"
        "|---|---|---|\n"
        "| part of the transformer | encoder | decoder |\n"
        "| attention | bidirectional: every token sees every token | causal: each token sees only those before it |\n"
        "| pre-training objective | fill in masked words (15% of tokens) + is sentence B next? | predict the next token, everywhere |\n"
        "| tokens | WordPiece (`play ##ing`) | byte-level BPE (`␣playing`) |\n"
        "| good at | understanding: classify, tag, find answers in a text | writing: continue a text |\n"
        "| used by | fine-tuning on a task with a small head | prompting and sampling |"
    ),
    "start.path": "### A guided path\nEach step opens a tab with an example and runs it; then change the input and run it again.",
    "start.glossary_title": "Glossary",
    "start.glossary": (
        "- **token**: a piece of text the model reads as one unit: a word, part of a word or a symbol.\n"
        "- **WordPiece**: BERT's tokenizer; a word missing from its vocabulary is split into pieces, and `##` marks a piece that continues a word.\n"
        "- **BPE (byte-level)**: GPT-2's tokenizer; merges frequent byte pairs. Its vocabulary writes a leading space as `Ġ`; "
        "this app shows every leading space as `␣` (a line break as `↵`), in every view and for every model.\n"
        "- **partial character** `나[1/3]`: byte-level BPE works on UTF-8 bytes, so one Hangul or kana character (3 bytes) "
        "or an emoji (4 bytes) may be split over several tokens; such a token shows the character and which of its "
        "bytes it holds (`나[1/3]`: byte 1 of the 3 bytes of 나).\n"
        "- **embedding**: the vector that stands for a token; BERT adds token, segment and position embeddings.\n"
        "- **layer**: one transformer block (attention then a feed-forward network); BERT-base and GPT-2 have 12.\n"
        "- **head**: one of the parallel attention mechanisms in a layer (12 per layer in both models), each with its own pattern.\n"
        "- **attention weight**: how much a token (query) takes from another token (key); each query's weights add up to 1.\n"
        "- **causal mask**: the rule that a GPT token cannot attend to tokens after it.\n"
        "- **logit**: the raw score the model gives each candidate token before softmax.\n"
        "- **softmax**: turns logits into probabilities that are positive and add up to 1.\n"
        "- **temperature**: divides the logits before softmax; below 1 sharpens the distribution, above 1 flattens it.\n"
        "- **top-k / top-p**: sampling filters keeping the k likeliest tokens / the smallest set whose probabilities add up to p.\n"
        "- **greedy / beam search**: always take the likeliest token / keep the few best partial texts.\n"
        "- **entropy**: how spread out a distribution is, in bits; 1 bit = a fair coin.\n"
        "- **perplexity**: exp(loss); how many equally likely choices the model is as unsure as.\n"
        "- **fine-tuning**: training a pre-trained model a little more, on a labelled task (sentiment, entities, QA)."
    ),
    # attention
    "attention.tab": "Attention",
    "attention.about": (
        "In every layer, each attention **head** lets every token (the **query**, a row) decide how much "
        "to read from every token (the **keys**, the columns), and each row adds up to 1. Run a sentence "
        "once, then move the sliders or switch views: the picture is redrawn from the stored weights. "
        "Look for BERT heads that pile their weight on `[CLS]`/`[SEP]` (tick *hide special tokens* to see "
        "what is left), and notice that GPT-2's maps are empty above the diagonal: it cannot look ahead."
    ),
    "attention.text": "Text (read up to the model's limit: BERT 512 tokens, GPT-2 1,024)",
    "attention.role": "Model",
    "attention.model": "Checkpoint (which weights)",
    "attention.role.encoder": "BERT (encoder: reads both ways)",
    "attention.role.decoder": "GPT-2 (decoder: reads left to right)",
    "attention.run": "Show attention",
    "attention.view": "View",
    "attention.view.head": "One head",
    "attention.view.layer": "All heads of the layer",
    "attention.view.overview": "Every head at a glance",
    "attention.view.lines": "Lines (one head)",
    "attention.view.mean": "Mean of the layer's heads",
    "attention.view.rollout": "Rollout up to the layer",
    "attention.view.focus": "Focus on a query (full resolution)",
    "attention.view.heads": "Every head's map (thumbnails)",
    "attention.layer": "Layer (0 = the first)",
    "attention.head": "Head (0 = the first)",
    "attention.hide_special": "Hide special tokens ([CLS], [SEP], <|endoftext|>) and renormalise each row",
    "attention.query": "Focus: query token (position)",
    "attention.span": "Focus: queries from there",
    "attention.stat": "Colour the overview by",
    "attention.stat.entropy": "entropy: how spread out",
    "attention.stat.to_special": "share on [CLS]/[SEP] (GPT-2: its first token)",
    "attention.stat.to_previous": "share on the previous token",
    "attention.stat.to_self": "share on the token itself",
    "attention.plot": "Attention",
    "attention.tokens": "Tokens the model sees (special tokens marked)",
    "attention.special": "special",
    "attention.read": "`{model}` read **{n} tokens**: {layers} layers × {heads} heads.",
    "attention.truncated": (
        "**Cut short:** the text makes {total} tokens; only the first {shown} are shown. "
        "Shorten the text to see all of it."
    ),
    "attention.export": "Export this view (CSV and JSON)",
    "attention.files": "Downloads: the numbers behind the current view",
    "attention.run_first": "Show the attention for a text first, then export it.",
    # BERT vs GPT-2
    "compare.tab": "BERT vs GPT-2",
    "compare.about": (
        "The same sentence through both models. BERT's attention may go to any token; GPT-2's causal mask "
        "lets each token see only itself and the tokens before it, so its share of attention to later "
        "tokens is exactly zero in every layer. Below, test what that means: one word in two sentences, "
        "one gap filled from both sides or from the left only, and the two models in numbers."
    ),
    "compare.text": "Sentence",
    "compare.run": "Compare the attention",
    "compare.mask_plot": "Who may attend to whom in GPT-2",
    "compare.future_plot": "Attention to later tokens, layer by layer",
    "compare.layer": "Layer (0 = the first)",
    "compare.head": "Head (0 = the first)",
    "compare.encoder_plot": "BERT: one head",
    "compare.decoder_plot": "GPT-2: one head",
    "compare.same.title": "### Same word, different contexts",
    "compare.same.about": (
        "Two sentences that agree up to a word and differ after it. GPT-2 reads left to right, so it gives "
        "the word exactly the same vector in both (similarity 1 at every layer); BERT also reads what comes "
        "after, so its vectors drift apart layer by layer. Try a word with two meanings."
    ),
    "compare.same.first": "First sentence",
    "compare.same.second": "Second sentence",
    "compare.same.word": "Word in both sentences",
    "compare.same.run": "Compare the word's vectors",
    "compare.same.plot": "How alike the word's two vectors are",
    "compare.same.clean": "The sentences agree up to **{word}**, so GPT-2's two vectors must be the same.",
    "compare.masked.title": "### One gap, two readers",
    "compare.masked.about": (
        "Put one `[MASK]` in a sentence. BERT fills it using the words on both sides; GPT-2 can only "
        "continue the words before it. Put the clue after the gap (\"The [MASK] barked all night.\") "
        "and see which model gets it."
    ),
    "compare.masked.text": "Sentence with exactly one [MASK]",
    "compare.masked.run": "Fill the gap with both",
    "compare.masked.plot": "Top guesses for the gap",
    "compare.masked.left": "GPT-2 reads only: *{left}*",
    "compare.facts.title": "### The two models in numbers",
    "compare.facts.about": (
        "Size, shape and speed of the chosen models; the forward time is measured now, on this machine, "
        "for one short sentence (the median of three runs)."
    ),
    "compare.facts.run": "Measure",
    "compare.facts.table": "Model facts",
    "compare.facts.headers": "fact|BERT (encoder)|GPT-2 (decoder)",
    "compare.facts.model_id": "Model",
    "compare.facts.architecture": "Architecture",
    "compare.facts.layers": "Layers",
    "compare.facts.heads": "Attention heads per layer",
    "compare.facts.hidden_size": "Hidden size (vector length)",
    "compare.facts.parameters": "Parameters in all",
    "compare.facts.body_parameters": "Parameters of the body (embeddings + layers; the papers' count)",
    "compare.facts.head_parameters": "Parameters of the heads on top (MLM + NSP for BERT, LM for GPT-2)",
    "compare.facts.missing_heads": "Heads with no trained weights (their tasks refuse this model)",
    "compare.facts.tied": "{n:,} (the output layer reuses the token embeddings, counted in the body)",
    "compare.facts.kind.learned_absolute": "learned absolute",
    "compare.facts.kind.sinusoidal_absolute": "sinusoidal absolute",
    "compare.facts.kind.bidirectional": "bidirectional",
    "compare.facts.kind.causal": "causal",
    "compare.facts.head.mlm": "masked words (MLM)",
    "compare.facts.head.nsp": "next sentence (NSP)",
    "compare.facts.head.lm": "next token (LM)",
    "compare.facts.none": "none",
    "compare.memory": "In memory on this server now: {models}: {used:.2f} GB of a {budget:.1f} GB budget (the least recently used model is unloaded first).",
    "compare.memory.model": "{model} ({gb:.2f} GB)",
    "compare.facts.vocab_size": "Vocabulary",
    "compare.facts.position_embedding": "Position embeddings",
    "compare.facts.max_positions": "Positions in the table",
    "compare.facts.max_length": "Longest input (tokens)",
    "compare.facts.attention_type": "Attention",
    "compare.facts.forward": "One forward pass",
    "compare.facts.forward_value": "{ms:.1f} ms for {tokens} tokens on {device}",
    # errors (the backend's messages)
    "error.nothing_to_corrupt": "The sentence has no words the model can read: type a sentence to corrupt.",
    "error.token_ids_unfit": "The token ids do not fit this model: start again from a text.",
    'error.word_missing': "The word '{word}' is not in the {what} sentence. Pick a word that appears in both.",
    "error.word_out_of_reach": "The sentence is too long for the {role} model to reach the word. Shorten it.",
    "error.one_mask": "Put exactly one [MASK] in the sentence, where the missing word goes; this one has {n}.",
    'error.lens_model': "The logit lens needs a GPT-2 style model; '{model}' is not one.",
    "error.label": "The label must be one of {labels}; got {got}.",
    "error.no_entity": "No entity was found in this text, so there is none to explain.",
    "error.generate_first": "Generate a text first: the explanation is of its last token.",
    'error.no_baseline': "This model's tokenizer has no padding, end-of-text or unknown token for the baseline.",
    'error.aggregation': "Unknown aggregation '{got}'. Pick one of: {choices}.",
    'error.no_mask_token': "The encoder model '{model}' has no mask token, so it cannot fill masks.",
    "error.missing_head.mlm": (
        "'{model}' has no masked-word (MLM) head, so it cannot fill masks: it was not released with one. "
        "Pick {instead}, or use this model in Attention, Compare or the embeddings view."
    ),
    "error.missing_head.nsp": (
        "'{model}' has no next-sentence (NSP) head, so it cannot tell whether sentence B follows sentence A: it was "
        "not released with one. Pick {instead}, or use this model in Attention, Compare or the embeddings view."
    ),
    "error.missing_head.lm": (
        "'{model}' has no next-token (LM) head, so it cannot predict or generate text: it was not released with one. "
        "Pick {instead}, or use this model in Attention or Compare."
    ),
    "error.no_mask": "Put at least one {mask} in the sentence where a word is missing.",
    "error.too_many_masks": "Use at most {limit} masks; this sentence has {n}.",
    'error.attention_role': "Attention is shown for the roles 'encoder' (BERT) and 'decoder' (GPT-2); got {got}.",
    "error.view": "Pick one of the views: {choices}; got {got}.",
    "error.stat": "Pick one of the statistics: {choices}; got {got}.",
    "error.not_text": "The {what} must be text.",
    "error.empty": "The {what} is empty: type a sentence first.",
    "error.too_long": "The {what} is {n:,} characters long; the limit is {limit:,}. Shorten it.",
    "error.not_number": "{what} must be a number between {low} and {high}; got {got}.",
    "error.out_of_range": "{what} must be between {low} and {high}; got {got}.",
    "error.not_whole": "{what} must be a whole number between {low} and {high}; got {got}.",
    "error.too_many_tokens": "The {what} makes {n} tokens; the {role} model reads at most {limit}. Shorten it.",
    "error.explain_tokens": (
        "An explanation reads at most {limit} tokens (each of its gradient passes reads all of them); this input "
        "makes {n}. Shorten it."
    ),
    "error.explain_time": (
        "The explanation ran past its {seconds:g}-second budget. Shorten the text or use fewer "
        "integrated-gradients steps."
    ),
    "error.no_uploads": "This app takes no file uploads.",
    "error.wrong_count": "{endpoint} takes {count} value{plural}: {names}; it was sent {got}.",
    "error.not_your_event": "Only the session that started a request can cancel it.",
    "error.busy_session": (
        "You already have {limit} requests waiting or running. Wait for one to finish, then try again."
    ),
    "error.busy_address": (
        "Your network already has {limit} requests waiting or running here. Wait for some to finish, then try again."
    ),
    "error.question_tokens": "The question makes {n} tokens; keep it under {limit}.",
    "error.empty_context": "The context has no words the model can read: paste the text to search in.",
    'error.strategy': "Unknown strategy '{got}'. Pick one of: {choices}.",
    "error.beam_sequences": "Beam search returns at most one sequence per beam: raise the beams or lower the sequences.",
    "error.greedy_sequences": "Greedy decoding always gives the same text: ask for one sequence, or pick a sampling strategy.",
    "error.prompt_tokens": "The prompt makes {n} tokens and {new} new ones were asked for; the decoder reads at most {limit}. Shorten the prompt or ask for fewer tokens.",
    'error.not_offered': "'{model}' is not offered for the {role} role. Pick one of: {choices}.",
    "error.word_missing.first": "first",
    "error.word_missing.second": "second",
    'error.cluster_unreachable': 'The model servers at {address} cannot be reached ({reason}). Try again in a minute; if it keeps happening, tell whoever runs this app that its Ray cluster is down (`ray status --address {address}`).',
    'error.cluster_not_deployed': 'The model servers at {address} do not serve this model ({reason}). Whoever runs this app should deploy it: `serve deploy deploy/serve.yaml` (on the head node).',
    'error.cluster_lost': 'The model server running this request stopped and no other could take it over ({reason}). Press the button again; your settings are kept.',
    'error.model_unavailable': "The {role} model '{model}' could not be loaded ({reason}). Fix: on a machine with internet run `python -m bg_demo download DIR` and start the app with BG_DEMO_MODEL_DIR=DIR, or set {env} to a local model folder. The other tabs keep working; this one retries on the next request.",
    "field.text": "text",
    "field.input_ids": "input_ids",
    "field.first sentence": "first sentence",
    "field.top-k": "top-k",
    "field.second sentence": "second sentence",
    "field.Top-p": "Top-p",
    "field.Token id": "Token id",
    "field.Temperature": "Temperature",
    "field.Seed": "Seed",
    "field.word": "word",
    "field.top_p": "top_p",
    "field.top_k": "top_k",
    "field.question": "question",
    "field.prompt": "prompt",
    "field.max_tokens": "max_tokens",
    "field.layer": "layer",
    "field.head": "head",
    "field.context": "context",
    "field.Top-k": "Top-k",
    "field.Sequences": "Sequences",
    "field.Repetition penalty": "Repetition penalty",
    "field.No-repeat n-gram size": "No-repeat n-gram size",
    "field.New tokens": "New tokens",
    "field.Mask": "Mask",
    "field.Layer": "Layer",
    "field.Integrated-gradients steps": "Integrated-gradients steps",
    "field.Head": "Head",
    "field.Guess": "Guess",
    "field.Entity": "Entity",
    "field.Candidates shown": "Candidates shown",
    "field.Beams": "Beams",
    "field.sentence": "sentence",
    # figures and notes (bg_demo/figures, backend prose)
    "fig.axes.embeddings": "embeddings",
    "fig.axes.embeddings_short": "emb",
    "fig.axes.layer": "layer {layer}",
    "fig.attention.query": "query",
    "fig.attention.key": "key",
    "fig.attention.weight": "weight",
    "fig.attention.layer": "layer",
    "fig.attention.head": "head",
    "fig.attention.head_n": "head {head}",
    "fig.attention.key_axis": "key (attended to)",
    "fig.attention.query_axis": "query (attending)",
    "fig.attention.head_title": "Layer {layer}, head {head}",
    "fig.attention.head_subtitle": "each row is a query, each column a key",
    "fig.attention.layer_title": "Layer {layer}: all {n_heads} heads",
    "fig.attention.stat.entropy": "entropy (bits)",
    "fig.attention.stat.to_special": "share on [CLS]/[SEP] (GPT-2: first token)",
    "fig.attention.stat.to_previous": "share on the previous token",
    "fig.attention.stat.to_self": "share on the token itself",
    "fig.attention.stat_short.entropy": "entropy",
    "fig.attention.stat_short.to_special": "share on [CLS]/[SEP]",
    "fig.attention.stat_short.to_previous": "share on the previous token",
    "fig.attention.stat_short.to_self": "share on the token itself",
    "fig.attention.overview_title": "Every head at a glance: {stat}",
    "fig.attention.lines_subtitle": "queries on the left, keys on the right",
    "fig.attention.largest": "largest weight",
    "fig.attention.pooled_subtitle": "each cell is the largest weight of {n}×{n} tokens; 'Focus on a query' shows every token",
    "fig.attention.every_head_title": "Every head: {layers} layers × {heads} heads",
    "fig.attention.every_head_subtitle": "each thumbnail is one head's map, a cell the largest of {n}×{n} weights",
    "fig.attention.every_head_full": "each thumbnail is one head's map",
    "fig.attention.lines_thinned": "the {n} strongest lines (weights from {weight}); hover a column for every token",
    "fig.attention.focus_row": "the chosen queries across every key",
    "fig.attention.focus_map": "the map around them, tokens {start}–{end}",
    "fig.attention.focus_title": "Layer {layer}, head {head}: where '{query}' #{at} looks",
    "fig.attention.focus_subtitle": "looks most at {keys}",
    "fig.attention.mean_title": "Layer {layer}: the mean of its heads",
    "fig.attention.rollout_title": "Attention rollout, from the input up to layer {layer}",
    "fig.attention.mask_legend": "1 = may attend, 0 = masked",
    "fig.attention.mask_title": "Causal mask: blue = may attend",
    "fig.attention.model.encoder": "BERT (encoder)",
    "fig.attention.model.decoder": "GPT-2 (decoder)",
    "fig.attention.future_axis": "attention to later tokens",
    "fig.attention.future_title": "Attention to later tokens",
    "fig.attention.future_subtitle": "the share that goes to the right of each token",
    "fig.attention.same_word_axis": "the word's vector after",
    "fig.attention.cosine": "cosine similarity",
    "fig.attention.same_word_title": "'{word}' in the two sentences: how alike are its vectors?",
    "fig.attention.both_encoder": "reads both sides of the gap",
    "fig.attention.both_decoder": "reads only the words before it",
    "fig.alt.map": "{title}: a heatmap over {n} tokens, one row per query and one column per key. The strongest weight, {weight}, goes from '{query}' to '{key}'.",
    "fig.alt.layer_heads": "{title}: one small heatmap per head over {n} tokens, on one colour scale. The strongest weight, {weight}, is in head {head}, from '{query}' to '{key}'.",
    "fig.alt.overview": "{title}: a grid of {layers} layers by {heads} heads. The highest is layer {layer}, head {head}, at {value}.",
    "fig.alt.lines": "{title}: lines join each of {n} query tokens (left) to the keys it attends to (right), thicker for larger weights. The strongest, {weight}, goes from '{query}' to '{key}'.",
    "fig.alt.every_head": "{title}: a small map of each head over {n} tokens, layers down and heads across. The strongest weight is in layer {layer}, head {head}.",
    "fig.alt.focus": "{title}: its row across every key, and the map around it at full resolution. It looks most at {keys}.",
    "fig.alt.mask": "{title}: over {n} tokens, each token may attend to itself and the tokens before it, never to those after it.",
    "fig.alt.future": "{title}, layer by layer, BERT beside GPT-2: BERT gives up to {encoder} of its attention to later tokens, GPT-2 at most {decoder}.",
    "fig.alt.same_word": "How alike the two vectors of '{word}' are after each layer, one line per model. After the last layer the cosine similarity is {encoder} for BERT and {decoder} for GPT-2.",
    "fig.alt.masked_both": "The top guesses for the gap, on one probability scale: BERT's best is {encoder}; GPT-2's best next token is {decoder}.",
    "fig.explain.row.attention": "attention",
    "fig.explain.row.gradient_x_input": "gradient × input",
    "fig.explain.row.integrated_gradients": "integrated gradients",
    "fig.explain.colorbar": "share of the row's largest",
    "fig.explain.mean_heads": "mean of the heads",
    "fig.explain.head_n": "head {head}",
    "fig.explain.title": "Why {target} = {score}",
    "fig.explain.subtitle": "attention at layer {layer} ({head}); attribution with {steps} steps",
    "fig.explain.rows_axis": "each row on its own scale",
    "fig.alt.explain": "{title}: a heatmap over {n} tokens in three rows (attention, gradient × input, integrated gradients). Integrated gradients credit '{token}' the most.",
    "fig.generation.token_title": "rank {rank} · p = {p}",
    "fig.generation.legend": "probability of each new token: {swatches}",
    "fig.generation.kept": "kept",
    "fig.generation.dropped_top_p": "dropped by top-p",
    "fig.generation.dropped_top_k": "dropped by top-k",
    "fig.generation.after_temperature": "after temperature",
    "fig.generation.rank": "rank",
    "fig.generation.model": "model",
    "fig.generation.sampled_with": "sampled with",
    "fig.generation.model_marker": "model (temperature 1)",
    "fig.generation.cumulative_line": "cumulative (top-p reads this)",
    "fig.generation.entropy_title": "entropy {before} bits → {after} after temperature",
    "fig.generation.can_sample": "{n} token{plural} can be sampled",
    "fig.generation.candidates_axis": "candidate next token, best first",
    "fig.generation.probability": "probability",
    "fig.generation.cumulative_axis": "cumulative probability",
    "fig.generation.lens_after": "after",
    "fig.generation.lens_predicts": "predicts",
    "fig.generation.lens_final_rank": "rank of the final prediction here",
    "fig.generation.lens_title": "What each layer would predict next",
    "fig.generation.lens_x": "reading up to",
    "fig.generation.layer": "layer",
    "fig.generation.beam_n": "beam {n}",
    "fig.generation.step": "step",
    "fig.generation.beam_title": "Beams kept at each step",
    "fig.generation.new_tokens": "new tokens",
    "fig.generation.beam_y": "log-probability behind the best beam",
    "fig.generation.beam_total": "total",
    "fig.alt.next_token": "Bars of the {n} most likely next tokens, best first. The most likely after temperature is {best}; {kept} tokens can be sampled.",
    "fig.alt.lens": "A heatmap of the token each of {layers} layers would predict next at each of {n} positions. After the last token ('{token}') the last layer predicts {best}.",
    "fig.alt.beams": "The best {n} beams at each of {steps} steps, each drawn by how far its log-probability trails the best beam's. The best beam ends at a total of {score}: '{text}'.",
    "fig.pretraining.part.token": "token",
    "fig.pretraining.part.segment": "segment",
    "fig.pretraining.part.position": "position",
    "fig.pretraining.part.sum": "sum",
    "fig.pretraining.part_embedding": "{part} embedding",
    "fig.pretraining.norms_title": "Lengths of BERT's input embeddings",
    "fig.pretraining.l2": "L2 norm",
    "fig.pretraining.rank": "rank",
    "fig.pretraining.loss_title": "How surprised GPT-2 is by each next token",
    "fig.pretraining.loss_subtitle": "dashed line: the mean loss {loss} (perplexity {perplexity})",
    "fig.pretraining.target_axis": "target token",
    "fig.pretraining.loss_axis": "−log p (nats)",
    "fig.alt.norms": "Bars of the lengths of the token, segment and position embeddings and of their sum for {n} tokens. The longest sum is '{token}' at {norm}.",
    "fig.alt.loss": "Bars of GPT-2's loss on each of {n} next tokens. The mean is {loss}; the most surprising token is '{token}' at {worst}.",
    "fig.tasks.probability": "probability",
    "fig.tasks.mask_of": "[MASK] {i} of {n}",
    "fig.alt.guess": "'{token}' ({score})",
    "fig.alt.fill_mask": "Bars of BERT's top guesses for each of {n} [MASK], best first. The best: {best}.",
    "fig.alt.labels": "Bars of the probability of each of {n} labels, best first. The most likely is {best}.",
    "note.compare.same_sentences": "The two sentences are the same: change the words after '{word}' in one of them.",
    "note.compare.differ_before": (
        "The sentences differ before or in '{word}', so GPT-2 reads different inputs too and its vectors "
        "can differ. Keep everything up to '{word}' identical for the clean experiment."
    ),
    "note.compare.split.encoder": "The encoder splits '{word}' into several tokens; the first one is compared.",
    "note.compare.split.decoder": "The decoder splits '{word}' into several tokens; the first one is compared.",
    "note.explain.mask": "p('{word}' at {mask})",
    "note.explain.next": "p('{word}' next)",
    "note.explain.entity": "p(tags of '{text}' as {label})",
    "note.explain.label": "p({label})",
    "note.explain.is_next": "p(IsNext)",
    "note.explain.no_answer": "p(no answer)",
    "note.explain.answer": "p(answer '{answer}')",
    # bad input (issue 16)
    "input.this": "This input",
    "input.not_text": "“{what}” must be text; got {got}.",
    "input.not_unicode": (
        "“{what}” holds a character that is not valid text (a lone surrogate such as \\ud800): remove it, or send "
        "the text as UTF-8."
    ),
    "input.number.between": "“{what}” must be a number between {low} and {high}; got {got}.",
    "input.whole.between": "“{what}” must be a whole number between {low} and {high}; got {got}.",
    "input.number.at_least": "“{what}” must be a number of at least {low}; got {got}.",
    "input.whole.at_least": "“{what}” must be a whole number of at least {low}; got {got}.",
    "input.number": "“{what}” must be a number; got {got}.",
    "input.whole": "“{what}” must be a whole number; got {got}.",
    "input.not_choice": "“{what}” must be one of: {choices}; got {got}.",
    "input.no_choices": "“{what}” has nothing to pick from yet: leave it out (null); got {got}.",
    "error.not_unicode": (
        "The {what} holds a character that is not valid text (a lone surrogate such as \\ud800): remove it, or send "
        "the text as UTF-8."
    ),
    # --- Fine-tune or prompt? -------------------------------------------------------------------------------------
    "ft.tab": "Fine-tune or prompt?",
    "ft.about": (
        "**Two ways a pre-trained model learns a task.** BERT (and GPT-1) are *fine-tuned*: a small head goes on top "
        "and a few optimiser steps on labelled examples change some weights. GPT-2 and GPT-3 are *prompted*: the task "
        "is written into the text (zero-shot), perhaps with a few solved examples (few-shot), and no weight changes. "
        "Here both models do one task both ways, on the same examples and the same test sentences; the last tab "
        "puts the four side by side."
    ),
    "ft.task": "Task",
    "ft.task.sentiment": "Sentiment (2 labels)",
    "ft.task.topic": "Topic (4 labels)",
    "ft.load": "Load the built-in task",
    "ft.data": "The task's examples (edit any cell; a row per sentence)",
    "ft.train": "Train: the labelled examples (fine-tuning trains on them; a few-shot prompt shows some)",
    "ft.test": "Test: held out, scored by all four",
    "ft.data_headers": "sentence|label",
    "ft.add_row": "+ Add a row",
    "ft.prompt_bert": "BERT · prompt",
    "ft.prompt_gpt": "GPT-2 · prompt",
    "ft.tune_bert": "BERT · fine-tune",
    "ft.tune_gpt": "GPT-2 · fine-tune",
    "ft.summary": "All four",
    "ft.prompt.about.encoder": (
        "BERT fills a blank: the template puts `[MASK]` where a **label word** goes, and each label scores its "
        "word's logit at the mask. Few-shot writes solved examples (their word in place of the mask) in front."
    ),
    "ft.prompt.about.decoder": (
        "GPT-2 continues the text: each label scores how likely its **label word** comes next after the prompt. "
        "Few-shot writes solved examples in front. *Calibration* divides out the prompt's own bias, measured on "
        "the content-free input “N/A”."
    ),
    "ft.template": "Template ({text} is replaced by each sentence)",
    "ft.words": "Label words, one per label, in the labels' order (comma-separated)",
    "ft.shots": "Examples in the prompt (k-shot)",
    "ft.seed": "Seed (which examples, in which order)",
    "ft.calibrate": "Calibrate (content-free input)",
    "ft.prompt_run": "Score the test sentences",
    "ft.why_sentence": "Which test sentence (1 = the first): why its predicted label",
    "ft.why_range": "Pick a test sentence between 1 and {n}: the result on screen has {n}.",
    "error.prompt_first": "Score the test sentences first, then ask why.",
    "ft.prompt_text": "The exact text the model reads (first test sentence)",
    "ft.prompt_tokens": "…as tokens",
    "ft.prompt_headline": (
        "**{model}** · {shots}-shot · test accuracy **{accuracy:.0%}** on {n} sentences{calibrated} · "
        "the longest prompt is {longest} of {limit} tokens · no weight changed"
    ),
    "ft.calibrated": " (before calibration: {raw:.0%})",
    "ft.label_words_line": "Label words as the model reads them: {words}",
    "ft.scores": "Each test sentence: the probability of every label",
    "ft.continuation": "GPT-2 writes",
    "ft.sentence": "sentence",
    "ft.truth": "true label",
    "ft.predicted": "predicted",
    "ft.right": "✓",
    "ft.wrong": "✗",
    "ft.confusion": "Confusion table: rows the true label, columns the predicted one",
    "ft.confusion_corner": "true ╲ predicted",
    "ft.scores_headers": "sentence|true label|p(label)|predicted|",
    "ft.confusion_headers": "true ╲ predicted|label",
    "ft.method": "What trains",
    "ft.method.head": "head only (a linear probe)",
    "ft.method.lora": "LoRA + head",
    "ft.method.layers": "last layers + head",
    "ft.layers": "Last layers trained (for “last layers + head”)",
    "ft.steps": "Optimiser steps",
    "ft.rate": "Learning rate (AdamW)",
    "ft.batch": "Batch size",
    "ft.tune_seed": "Seed (head, LoRA and batches)",
    "ft.train_run": "Fine-tune",
    "ft.stop": "Stop",
    "ft.tune.about.encoder": (
        "A classification head reads BERT's `[CLS]` vector; real AdamW steps on the train table change the head, "
        "and with LoRA or the last layers some of BERT too. Your model is yours: nobody else's page changes."
    ),
    "ft.tune.about.decoder": (
        "GPT-1's recipe on GPT-2: a classification head reads the last token's vector; real AdamW steps on the train "
        "table change the head, and with LoRA or the last layers some of GPT-2 too. Your model is yours alone."
    ),
    "ft.status.running": "Step {step} of {steps} · loss {loss} · {seconds:.1f} s",
    "ft.status.stopping": "stopping…",
    "ft.status.done": (
        "**{model}** · {method} · {step} steps on {n} examples · test accuracy **{before:.0%} → {after:.0%}** · "
        "{changed} of {total} weights changed ({share})"
    ),
    "ft.status.stopped": (
        "**Stopped after {step} of {steps} steps**: test accuracy **{accuracy:.0%}** with what it learnt so far, "
        "which is kept."
    ),
    "ft.status.stop_after_end": (
        "**Stop came after the last step**: the run had already finished its {steps} steps, so this is its whole "
        "result."
    ),
    "ft.status.no_weights": "This run stopped in its GPU worker before its end: its learnt weights stayed there. Fine-tune again to try it on your own sentence.",
    "ft.curve": "Loss and accuracy as it trains",
    "ft.before_after": "Each test sentence before and after",
    "ft.before_after_headers": "sentence|true label|p(true) before|p(true) after|predicted after|",
    "ft.map": "The test sentences' vectors before and after",
    "ft.try": "Try your model on a sentence of your own",
    "ft.try_run": "Classify it",
    "ft.try_result": "Your fine-tuned model's probabilities",
    "ft.summary.about": (
        "Accuracy on the same test sentences, against what each way used: labelled examples, and weights changed. "
        "Run the four pages first; a page not run yet shows “–”."
    ),
    "ft.summary_headers": "way|model|labelled examples used|weights changed|test accuracy",
    "ft.way.prompt.encoder": "BERT prompted (cloze, {shots}-shot)",
    "ft.way.prompt.decoder": "GPT-2 prompted ({shots}-shot{calibrated})",
    "ft.way.calibrated": ", calibrated",
    "ft.way.tune.encoder": "BERT fine-tuned ({method})",
    "ft.way.tune.decoder": "GPT-2 fine-tuned ({method})",
    "ft.way.checkpoint": "The Sentiment tab's checkpoint (fine-tuned on SST-2)",
    "ft.way.not_run": "not run yet",
    "ft.sst2_examples": "67,349 (SST-2)",
    "ft.all_weights": "all ({total})",
    "ft.checkpoint_run": "Score the Sentiment tab's checkpoint too",
    "ft.summary_plot": "Test accuracy of each way",
    "fig.ft.loss": "loss",
    "fig.ft.step": "step",
    "fig.ft.accuracy": "accuracy",
    "fig.ft.train_accuracy": "train accuracy",
    "fig.ft.test_accuracy": "test accuracy",
    "fig.ft.curve_title": "Fine-tuning: {method}",
    "fig.ft.curve_subtitle": "step {step} of {steps} · last loss {loss}",
    "fig.ft.before": "before",
    "fig.ft.after": "after",
    "fig.ft.predicted": "predicted",
    "fig.ft.direction": "direction {n}",
    "fig.ft.map_title": "What the head reads, in 2-D (PCA)",
    "fig.ft.map_subtitle": "colour: the true label · hollow: predicted wrong",
    "fig.ft.wrong": "hollow: predicted wrong",
    "fig.ft.map_head": "head only: the vectors stay where they were; only the head's reading of them changed",
    "fig.alt.ft_curve": (
        "Training curve over {n} steps: the loss went from {first} to {last}; the last test accuracy was {accuracy}."
    ),
    "fig.alt.ft_map": (
        "The {n} test sentences' vectors in two dimensions, before and after fine-tuning; test accuracy {before} "
        "before and {after} after."
    ),
    "field.train": "train table",
    "field.test": "test table",
    "field.label": "label",
    "field.label word": "label word",
    "field.template": "template",
    "field.shots": "Examples in the prompt",
    "field.steps": "Optimiser steps",
    "field.learning rate": "Learning rate",
    "field.batch size": "Batch size",
    "field.layers": "Last layers trained",
    "error.task_rows": "The {what} must be a list of rows (sentence, label); got {got}.",
    "error.task_row": "Row {row} of the {what} must hold a sentence and a label; got {got}.",
    "error.task_cell": "Row {row} of the {what}: {problem}",
    "error.task_no_text": "Row {row} of the {what} has a label but no sentence: type one, or clear the row.",
    "error.task_no_label": "Row {row} of the {what} has no label: type one (any short word), or clear the row.",
    "error.task_too_many": "The {what} has {n} rows; the limit is {limit}. Remove some.",
    "error.task_empty": "The {what} is empty: add rows (sentence, label), or load the built-in task.",
    "error.task_labels": "A task needs 2 to {limit} different labels in the train table; it has {n}.",
    "error.task_unknown_label": (
        "The test table uses label(s) {labels} that no train row has. The train table's labels: {known}."
    ),
    "error.label_words": "Give one label word per label ({n}: {labels}), separated by commas; got {got}.",
    "error.label_words_repeat": "Each label needs its own word; these repeat: {got}.",
    "error.label_word_tokens": (
        "BERT fills one token at the mask, but “{word}” is several for this model: {pieces}. Pick a word that is "
        "one token (a common short word)."
    ),
    "error.template_slot": "The template needs {slot} where each sentence goes.",
    "error.task_mask": "BERT's prompt already has its {mask} where the label word goes; a sentence with one of its own would give it two. Remove it from: {text}",
    "error.template_mask": "BERT's template needs exactly one {mask}, where the label word goes.",
    "error.task_model": "Pick an allowed encoder or decoder model (or “encoder” / “decoder”); got {got}. Allowed: {choices}.",
    "error.tune_method": "Pick what trains: one of {choices}; got {got}.",
    "error.tune_stopped_early": "The run was stopped before its first step: press Fine-tune again.",
    "error.tune_nothing": "Fine-tune a model on this page first, then try it on your own sentence.",
    "error.tune_why_first": "Fine-tune a model on this page first, then ask why it labels a test sentence as it does.",
    "ft.why_tuned_sentence": "Which test sentence (1 = the first): why your fine-tuned model predicts its label",
    "error.checkpoint_labels": (
        "The Sentiment tab's checkpoint knows the labels {known}; this task's {labels} are not among them. Load the "
        "English sentiment task (or name the labels as the checkpoint does)."
    ),
    "error.export_failed": "The files could not be written on the server ({reason}). Try the export again in a moment.",
    # --- the AI tutor (MCP) -------------------------------------------------------------------------------------------
    "error.head_needs_layer": "A head is picked within a layer: give the layer too.",
    "error.tutor_task": "Pick what to explain: one of {choices}; got {got}.",
    # an MCP tool call's arguments, checked against its schema before it runs: `expected` is the schema's type
    # (string, integer, [[string]], "greedy" | "beam", …), written as the tool's schema writes it
    "error.tool_argument_missing": "{tool} needs the argument `{argument}` ({expected}).",
    "error.tool_argument_unknown": "{tool} takes no argument `{argument}`; its arguments are {arguments}.",
    "error.tool_argument_type": "The argument `{argument}` of {tool} must be {expected}; got {got}.",
    "error.call_given_up": "The assistant stopped waiting for this call, so it was ended.",
    "tutor.prompt": (
        "You are tutoring a student on BERT and GPT-2 with the tools of the \"BERT & GPT-2, side by side\" app. Every "
        "tool runs a real model and returns its numbers as JSON: answer with evidence from a call, not from memory.\n\n"
        "How to teach:\n"
        "1. Start from the two pretraining tasks. fill_mask shows BERT filling a gap from both sides (masked language "
        "modelling); next_sentence is its second task. generate and next_token show GPT-2 predicting the next token "
        "from the left only (causal language modelling).\n"
        "2. Put the two side by side with compare: future_share is above 0 for BERT (bidirectional attention) and "
        "exactly 0 for GPT-2 (causal mask). With a word and a second sentence, same_word shows GPT-2's vectors stay "
        "identical while the sentences agree up to the word, and BERT's do not.\n"
        "3. Decoding: call next_token with different temperature, top_k and top_p and read \"final\" (the "
        "probability of being sampled); then generate with each strategy. Give a seed when the student must see the "
        "same sample again.\n"
        "4. Inside the model: attention_summary gives per-head numbers (entropy, to_previous, to_first, to_sep). A "
        "head with to_previous near 1 is a previous-token head; much attention on [CLS], [SEP] or GPT-2's first token "
        "is often a resting place, not meaning. Ask for one head's map (layer and head) only when needed. logit_lens "
        "shows GPT-2's guess forming layer by layer.\n"
        "5. Fine-tuned BERT models: classify, entities and answer. Prompting instead of fine-tuning: prompt_task, "
        "zero-shot (shots 0) and few-shot, with BERT as a cloze and GPT-2 as a continuation, on the same labelled rows.\n\n"
        "Korean and Japanese text: the default models read English only (bert-base-uncased breaks Hangul into jamo, "
        "GPT-2 into bytes), so their numbers on such text mean nothing. Pass model: "
        "google-bert/bert-base-multilingual-cased to the BERT tools (fill_mask, next_sentence, the encoder of "
        "attention_summary and compare, explain, prompt_task); skt/kogpt2-base-v2 for Korean and "
        "rinna/japanese-gpt2-small for Japanese to the GPT-2 tools (generate, next_token, logit_lens, the decoder of "
        "attention_summary and compare). The models of classify, entities and answer read English only: do not run "
        "them on Korean or Japanese text, and never present such a result as a success. A result with \"warning\" "
        "came from a model that does not read the text's language: its use_model names the model to pass instead.\n\n"
        "How to read the numbers: \"score\" is the model's probability, not a confidence that it is right; tiny "
        "differences between probabilities are not meaningful; tokens are what the model reads (WordPiece pieces "
        "start with ##, GPT-2 marks a leading space with ␣).\n\n"
        "What not to claim: attention is not explanation. Attention weights show where a head looked, not why the "
        "model predicted what it did. For a \"why\" question call explain, which puts attention beside attribution "
        "(integrated gradients); when spearman is low they disagree, and attribution is the better guide to which "
        "tokens mattered. Do not say a model \"understands\" or \"knows\"; say what its numbers show. A tool "
        "that returns an error says what to change: fix the input and call again."
    ),
}
