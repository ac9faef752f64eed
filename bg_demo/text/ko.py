"""Korean: the same keys as `en.py`."""

KO: dict[str, str] = {
    "app.heading": "# BERT와 GPT-2, 나란히 보기",
    "app.intro": (
        "사전 학습된 Transformer의 두 기둥을 직접 다뤄 보는 안내서예요. **BERT**는 문장 전체를 한 번에 읽고 빈칸을 "
        "채우고, **GPT-2**는 왼쪽에서 오른쪽으로 읽으며 다음 단어를 써요. 탭을 하나 고르고 예시를 실행해 본 다음, "
        "직접 텍스트를 입력해 보세요."
    ),
    "app.loading": "{role} 모델({model})을 불러오는 중이에요. 첫 요청은 조금 더 오래 걸려요…",
    "app.role.encoder": "인코더",
    "app.role.decoder": "디코더",
    "app.role.sentiment": "감성 분석",
    "app.role.ner": "개체명 인식",
    "app.role.qa": "질의응답",
    "app.gpu_service": "이 앱이 쓰는 공유 GPU 서비스(ZeroGPU)가 이 요청을 실행하지 않았어요. ZeroGPU가 보낸 원래 메시지: {message}",
    "app.gpu_quota": (
        "이 앱이 쓰는 공유 GPU 서비스(ZeroGPU)가 이 요청을 실행하지 않았어요. 오늘 쓸 수 있는 GPU 시간을 다 썼어요. "
        "{when} {sign_in} ZeroGPU가 보낸 원래 메시지: {message}"
    ),
    "app.gpu_quota.when": "약 {hours}시간 {minutes}분 뒤에 다시 쓸 수 있어요.",
    "app.gpu_quota.when_unknown": "ZeroGPU는 언제 다시 쓸 수 있는지 알려 주지 않아요.",
    "app.gpu_quota.sign_in": (
        "로그인하지 않았기 때문에 ZeroGPU는 같은 네트워크에 있는 모든 사람(학교 공유기 하나 뒤의 반 전체)에게 할당량 하나를 "
        "함께 세요. 시작 페이지에서 Hugging Face로 로그인하면 나만의 할당량을 받을 수 있어요."
    ),
    "gpu.note.quota": (
        "오늘 쓸 수 있는 GPU 시간을 다 써서 ZeroGPU가 GPU를 주지 않았어요. 대신 이 Space의 CPU에서 실행했어요. 조금 더 "
        "느려요."
    ),
    "gpu.note.busy": "ZeroGPU에 남은 GPU가 없어서 이 Space의 CPU에서 대신 실행했어요. 조금 더 느려요.",
    "gpu.note.declared": (
        "이번 실행은 ZeroGPU에 GPU 시간 {seconds}초를 요청했어요. 이 세션에서 지금까지 요청한 시간은 {total}초예요. "
        "ZeroGPU는 방문자에게 하루 {anonymous}초, 로그인하면 {signed_in}초를 줘요."
    ),
    "gpu.sign_in": (
        "이 Space는 무거운 작업(생성, 설명, 미세 조정)을 ZeroGPU에서 실행하고, ZeroGPU는 GPU 시간을 방문자마다 세요. "
        "로그인하지 않으면 하루 {anonymous}초를 같은 네트워크의 모든 사람(학교 공유기 하나 뒤의 반 전체)이 함께 쓰고, "
        "로그인하면 나만의 {signed_in}초를 써요. BERT 작업과 어텐션 보기는 Space의 CPU에서 실행되어 GPU 시간을 쓰지 "
        "않아요."
    ),
    "app.unexpected": "요청을 처리하는 중에 서버에서 문제가 생겼어요. 다시 시도하거나 더 짧은 텍스트로 해 보세요.",
    "app.kept_result": "아래 결과는 이전 실행의 결과예요. 지금 입력의 결과가 아니에요.",
    "common.raw": "원시 결과 (API가 반환하는 JSON 그대로)",
    "common.summary": "요약",
    "common.examples": "예시: 클릭하면 불러와서 실행해요",
    "common.tokens": "모델이 보는 토큰",
    "common.model.encoder": "BERT 모델 (인코더)",
    "common.model.decoder": "GPT-2 모델 (디코더)",
    "why.last": "마지막",
    "generate.strategy.greedy": "greedy (그리디)",
    "generate.strategy.beam": "beam (빔 탐색)",
    "generate.strategy.temperature": "temperature (온도 샘플링)",
    "generate.strategy.top_k": "top_k (top-k 샘플링)",
    "generate.strategy.top_p": "top_p (top-p 샘플링)",
    "ner.aggregation.none": "none (없음)",
    "ner.aggregation.simple": "simple (단순 병합)",
    "ner.aggregation.first": "first (첫 토큰 기준)",
    "ner.aggregation.average": "average (평균 점수)",
    "ner.aggregation.max": "max (최대 점수)",
    "start.step.1": "1 · BERT가 빈칸을 채워요 (마스크 언어 모델)",
    "start.step.2": "2 · 미세 조정된 BERT: 리뷰는 긍정일까 부정일까?",
    "start.step.3": "3 · 미세 조정된 BERT: 사람, 장소, 기관 이름 찾기",
    "start.step.4": "4 · 미세 조정된 BERT: 텍스트에서 답 찾기",
    "start.step.5": "5 · 문장 B는 문장 A 다음에 올까? (NSP)",
    "start.step.6": "6 · GPT-2의 글쓰기: 그리디, 빔 탐색, 샘플링",
    "start.step.7": "7 · 한 번에 토큰 하나씩: 다음 토큰 실험실",
    "start.step.8": "8 · 두 모델의 내부: 어텐션 헤드",
    "start.step.9": "9 · 양방향 vs 인과적(단방향), 나란히 보기",
    "start.step.10": "10 · BERT의 학습 방법: 단어의 15%를 가리기",
    "start.step.11": "11 · GPT-2의 학습 방법: 모든 다음 토큰 예측하기",
    "start.step.12": "12 · 미세 조정이냐 프롬프트냐? 예시 몇 개로 과제를 배우는 GPT-2",
    # fill-mask
    "fill_mask.tab": "마스크 채우기",
    "fill_mask.about": (
        "BERT는 단어를 가린 뒤, 빈칸의 **양쪽** 문맥을 보고 그 단어를 다시 맞히는 방식으로 사전 학습되었어요. 단어가 "
        "빠진 자리마다 `[MASK]`를 쓰면(몇 개든 괜찮아요) 자리마다 상위 추측과 그 확률을 볼 수 있어요. 마스크 *뒤에* "
        "있는 단어를 바꿔 보세요. BERT는 오른쪽 문맥도 읽기 때문에 추측이 달라져요."
    ),
    "fill_mask.text": "[MASK]가 하나 이상 들어간 문장",
    "fill_mask.top_k": "마스크당 추측 수 (top-k)",
    "fill_mask.filled": "각 마스크를 가장 좋은 추측으로 채운 문장",
    "fill_mask.plot": "마스크별 상위 추측",
    "fill_mask.run": "마스크 채우기",
    # sentiment
    "classify.tab": "감성 분석",
    "classify.about": (
        "영화 리뷰(SST-2)로 미세 조정된 BERT 계열 인코더가 `[CLS]` 토큰의 벡터를 레이블마다 하나의 확률로 바꿔요. "
        "장단점이 섞인 리뷰나 부정 표현(\"not bad at all\", 전혀 나쁘지 않아)을 넣어 보고, 모델이 얼마나 확신하는지 "
        "살펴보세요."
    ),
    "classify.text": "분류할 텍스트",
    "classify.scores": "레이블별 확률",
    "classify.label.POSITIVE": "POSITIVE (긍정)",
    "classify.label.NEGATIVE": "NEGATIVE (부정)",
    "classify.run": "분류하기",
    # entities
    "ner.tab": "개체명",
    "ner.about": (
        "개체명 인식용으로 미세 조정된 BERT 모델이 WordPiece 토큰마다 BIO 레이블을 붙여요(B-는 개체의 시작, I-는 "
        "개체의 계속, O는 개체 바깥). 집계 전략은 토큰을 어떻게 개체로 묶을지 정해요. **none**은 원래 토큰을 그대로 "
        "보여 주고(`##` 조각 포함), **simple**은 이웃한 토큰을 합치며, **first / average / max**는 먼저 각 단어가 "
        "하나의 레이블로 통일되게 하므로 개체가 항상 온전한 단어들로 이루어져요."
    ),
    "ner.text": "텍스트",
    "ner.aggregation": "집계 전략",
    "ner.entities": "찾은 개체",
    "ner.table": "개체 (레이블, 텍스트, 점수, 문자 구간)",
    "ner.token_tags": "집계 전 각 토큰의 레이블",
    "ner.run": "개체 찾기",
    "ner.table_headers": "레이블|텍스트|점수|시작|끝",
    # question answering
    "qa.tab": "질의응답",
    "qa.about": (
        "추출형 QA 모델은 답을 직접 쓰지 않아요. 지문 안에서 답이 **시작하는** 곳과 **끝나는** 곳을 가리켜요. 긴 "
        "지문은 서로 겹치는 윈도우로 나눠 읽어요. `[CLS]` 토큰의 점수가 모든 구간보다 높으면, 모델은 \"이 텍스트에는 "
        "답이 없다\"고 말하는 거예요."
    ),
    "qa.question": "질문",
    "qa.context": "지문 (긴 텍스트는 겹치는 윈도우로 나눠 읽어요)",
    "qa.answer": "답",
    "qa.highlight": "지문 속의 답",
    "qa.alternatives": "상위 구간 (점수 높은 순)",
    "qa.run": "답 찾기",
    "qa.table_headers": "답|점수|시작|끝|윈도우",
    "qa.found": "**{answer}** (확률 {score}, 윈도우 {windows}개로 읽음)",
    "qa.none": (
        "**답 없음**: 모델은 이 지문이 질문에 답하지 않는다고 판단해요 (답 없음 점수 {null:.2f}이(가) 가장 좋은 구간 "
        "\"{best}\"의 점수 {best_logit:.2f}보다 높아요)."
    ),
    "qa.none_no_span": "**답 없음**: 모델이 지문에서 구간을 찾지 못했어요.",
    # question answering: where the answer looks (the attention of its window, from its first and last tokens)
    "qa.attention.title": "답이 보는 곳",
    "qa.attention.about": (
        "답이 나온 윈도우의 어텐션을 답의 **첫** 토큰과 **마지막** 토큰에서 읽어요. 고른 층과 헤드에서 두 토큰이 "
        "그 윈도우의 각 토큰(질문, 지문, `[CLS]`, `[SEP]`)에 얼마나 주의를 기울이는지 보여 줘요. 모델이 어디를 "
        "보는지일 뿐 왜 그렇게 답했는지는 아니에요. `[CLS]`와 `[SEP]`가 대부분을 가져가는 일이 흔해요."
    ),
    "qa.attention.run": "답이 보는 곳 보기",
    "qa.attention.layer": "층 (0 = 첫 번째)",
    "qa.attention.head": "헤드 (0 = 첫 번째)",
    "qa.attention.plot": "답에서 나가는 어텐션",
    "qa.attention.read": "윈도우 {window}/{windows}, 토큰 {n}개. 답은 그중 토큰 {start}–{end} 자리에 있어요.",
    "qa.attention.no_answer": (
        "볼 답이 없어요. 모델이 이 지문으로는 질문에 답할 수 없다고 했어요. 다른 질문을 하거나 답이 들어 있는 "
        "지문을 넣고 ‘답 찾기’를 다시 눌러 주세요."
    ),
    "qa.attention.not_in_window": (
        "문자 {start}–{end} 자리의 답은 윈도우 {window}의 지문 토큰으로 이루어진 구간이 아니에요. 답과 함께 받은 "
        "윈도우와 위치(`alternatives[0].window`, `start`, `end`)를 넘겨 주세요."
    ),
    "qa.attention.run_first": "먼저 ‘답 찾기’를 눌러 주세요. 이 보기는 화면에 있는 답의 어텐션을 읽어요.",
    "fig.qa_attention.title": "답이 보는 곳: 층 {layer}, 헤드 {head}",
    "fig.qa_attention.subtitle": "윈도우 {window}/{windows} (토큰 {n}개), 답: {answer}",
    "fig.qa_attention.from_start": "시작 토큰 {token}에서",
    "fig.qa_attention.from_end": "끝 토큰 {token}에서",
    "fig.qa_attention.part.special": "특수",
    "fig.qa_attention.part.question": "질문",
    "fig.qa_attention.part.context": "지문",
    "fig.qa_attention.answer": "답",
    "fig.qa_attention.keys": "윈도우의 토큰 (키)",
    "fig.qa_attention.weight": "어텐션 가중치",
    "fig.qa_attention.alt": "{title}: 윈도우 {window}의 토큰 {n}개 위에 그린 두 선으로, 답의 첫 토큰과 마지막 토큰에서 나가는 어텐션이에요. 첫 토큰은 '{start_key}' 쪽을 가장 많이 보고({start_weight}), 마지막 토큰은 '{end_key}' 쪽을 가장 많이 봐요({end_weight}).",
    # next sentence
    "nsp.tab": "다음 문장",
    "nsp.about": (
        "BERT의 두 번째 사전 학습 과제예요. 문장 A와 문장 B가 주어졌을 때, B가 책에서 정말 A 다음에 왔을까요, 아니면 "
        "무작위로 고른 문장일까요? `[CLS]` 벡터가 작은 2-클래스 분류기로 들어가요. 세그먼트 id(A는 0, B는 1)는 각 "
        "토큰이 어느 문장에 속하는지 모델에 알려 줘요."
    ),
    "nsp.first": "문장 A",
    "nsp.second": "문장 B",
    "nsp.scores": "B가 A 다음에 올까?",
    "nsp.is_next": "IsNext (이어짐)",
    "nsp.not_next": "NotNext (이어지지 않음)",
    "nsp.segments": "세그먼트별로 색칠한 토큰 (A = 0, B = 1)",
    "nsp.run": "예측하기",
    # generation (GPT-2)
    "generate.tab": "생성",
    "generate.about": (
        "GPT-2는 토큰을 하나씩 써요. 매번 50,257개 토큰에 대한 확률 분포에서 하나를 골라요. **그리디**(greedy)는 "
        "항상 가장 가능성 높은 토큰을 고르고(자주 같은 말을 반복해요), **빔 탐색**(beam)은 가장 좋은 부분 텍스트 몇 "
        "개를 유지하다가 전체 확률이 가장 높은 것을 돌려줘요. **샘플링**은 무작위로 뽑는데, **온도**(temperature)가 "
        "1보다 작으면 분포를 뾰족하게, 1보다 크면 평평하게 만들고, **top-k**는 가장 가능성 높은 k개 토큰만, "
        "**top-p**는 확률의 합이 p에 이르는 가장 작은 집합만 남겨요. 같은 시드는 같은 샘플을 만들어요."
    ),
    "generate.prompt": "프롬프트 (비워 두면 텍스트 시작 토큰부터 시작)",
    "generate.strategy": "디코딩 전략",
    "generate.max_new_tokens": "새 토큰 수 (1–{high})",
    "generate.temperature": "온도",
    "generate.top_k": "Top-k",
    "generate.top_p": "Top-p",
    "generate.num_beams": "빔 수",
    "generate.num_return_sequences": "나란히 볼 시퀀스 수",
    "generate.seed": "시드 (비워 두면 매번 새 무작위 시드, 아래에 표시)",
    "generate.seed_empty": "무작위",
    "generate.repetition": "반복 제어",
    "generate.no_repeat": "반복 금지 n-그램 크기 (0 = 끔)",
    "generate.penalty": "반복 페널티 (1 = 끔)",
    "generate.run": "생성하기",
    "generate.stop": "중지",
    "generate.output": (
        "생성된 텍스트: 새 토큰마다 모델이 얼마나 그럴듯하다고 봤는지에 따라 색을 칠했어요 (마우스를 올리면 순위가 "
        "보여요)"
    ),
    "generate.beams": "빔 탐색, 단계별로 보기",
    "generate.sequence": "시퀀스 {n}",
    "generate.status": "새 토큰 {tokens}개, {seconds:.1f}초 (초당 {rate:.1f}토큰){seed} · {why}",
    "generate.status_sequences": (
        "시퀀스 {sequences}개 × 새 토큰 {each}개, {seconds:.1f}초 (모두 합쳐 초당 {rate:.1f}토큰){seed} · {why}"
    ),
    "generate.status_seed": " · 시드 {seed}",
    "generate.streaming": "작성 중… 지금까지 새 토큰 {tokens}개{seed}",
    "generate.streaming_sequences": "작성 중… 시퀀스 {sequences}개 × 지금까지 새 토큰 {each}개{seed}",
    "generate.waiting": "빈자리를 기다리는 중: 앞에 요청이 {n}개 있어요…",
    "generate.why.end of text": "텍스트 끝 토큰에서 멈춤",
    "generate.why.max new tokens": "새 토큰 수 한도에서 멈춤",
    "generate.why.time budget": "시간 한도 {seconds:.0f}초에서 멈춤",
    "generate.why.stopped": "토큰 {tokens}개 뒤 멈춤 (중지 누름)",
    "generate.why.mixed": "시퀀스 {sequences}개 중 {ended}개는 텍스트 끝 토큰에서 멈춤, 나머지는 {rest}",
    "generate.rest.max new tokens": "새 토큰 수 한도에서 멈춤",
    "generate.rest.time budget": "시간 한도 {seconds:.0f}초에서 멈춤",
    "generate.rest.stopped": "중지를 눌러 멈춤",
    # next-token lab
    "lab.tab": "다음 토큰",
    "lab.page": (
        "토큰 하나씩, 가까이에서 본 생성이에요. **실험실**에서는 GPT-2가 다음 토큰을 고르는 분포를 보고 한 걸음씩 "
        "직접 골라 봐요. **로짓 렌즈**는 층마다 모델이 무엇을 예측하는지 보여 줘요."
    ),
    "lab.sub": "다음 토큰 실험실",
    "lab.about": (
        "생성의 한 단계를 천천히 보여 줘요. 막대는 온도를 적용한 뒤 모델이 꼽은 다음 토큰의 상위 후보이고, 검은 "
        "표시는 온도 1일 때 모델 본래의 확률이에요. 회색 막대는 top-k에서, 주황색 막대는 top-p에서 잘린 "
        "토큰이에요(top-p는 초록색 누적 곡선이 p에 이를 때까지 토큰을 남겨요). 토큰을 직접 고르거나, 그리디 토큰을 "
        "받거나, 샘플링해서 텍스트가 자라는 것을 지켜보세요."
    ),
    "lab.text": "지금까지의 텍스트",
    "lab.top_k": "Top-k (0 = 끔)",
    "lab.top_p": "Top-p (1 = 끔)",
    "lab.show": "다음 토큰 분포 보기",
    "lab.greedy": "그리디 토큰 받기",
    "lab.sample": "하나 샘플링하기",
    "lab.pick": "또는 후보 고르기",
    "lab.append": "고른 토큰 붙이기",
    "lab.context": "현재 텍스트",
    "lab.history": "지금까지의 단계",
    "lab.history_headers": "단계|토큰|순위|확률|방법",
    "lab.how.greedy": "그리디",
    "lab.how.picked": "직접 고름",
    "lab.how.sample": "시드 {seed}(으)로 샘플링",
    "lab.plot": "다음 토큰 후보",
    "lab.start_first": "먼저 텍스트의 분포를 보여 주세요.",
    # logit lens
    "lens.sub": "로짓 렌즈",
    "lens.about": (
        "GPT-2가 0번, 1번, 2번, … 층에서 멈춘다면 무엇을 예측할까요? 각 행은 한 층의 은닉 상태를 마지막 층 정규화와 "
        "출력 헤드에 통과시켜 읽은 결과예요. 아래쪽 층은 입력 토큰을 그대로 되풀이하는 경우가 많고, 예측은 위쪽 "
        "층에서 모양을 갖춰요."
    ),
    "lens.text": "텍스트",
    "lens.run": "층마다 들여다보기",
    "lens.plot": "층과 위치별 예측",
    "lens.truncated": "처음 {n}개 토큰만 보여요.",
    # pretraining lab
    "pre.tab": "사전 학습",
    "pre.about": (
        "BERT와 GPT-2가 레이블 없이 원시 텍스트에서 배운 방법이에요. BERT는 가려진 단어를 맞히고 두 문장이 "
        "이어지는지 판단하면서, GPT-2는 모든 다음 토큰을 예측하면서 배웠어요. 각 패널은 불러온 모델로 여러분의 "
        "문장에 실제 학습 목표를 적용해 봐요."
    ),
    "pre.mlm": "마스크 언어 모델 (BERT)",
    "pre.mlm.about": (
        "BERT는 **15%의 토큰**을 목표로 골라요. 그중 **80%는** `[MASK]`로, **10%는** 무작위 토큰으로 바뀌고, "
        "**10%는** 그대로 남아요. 손실은 목표 위치에서만 계산해요(그 밖의 레이블 −100은 \"무시\"라는 뜻이에요). 왜 "
        "항상 `[MASK]`로 바꾸지 않을까요? 나중에 BERT를 실제로 쓸 때는 `[MASK]`가 나오지 않아요. 그래서 모델은 "
        "평범해 보이는 토큰도 확인하는 법을 배워야 하고, 어떤 토큰을 확인해야 할지 알 수 없어요."
    ),
    "pre.text": "문장",
    "pre.seed": "시드 (어떤 토큰이 뽑힐지 결정)",
    "pre.corrupt": "훼손하고 예측하기",
    "pre.reroll": "다른 시드",
    "pre.tokens": "원래 토큰, 훼손된 입력과 레이블",
    "pre.token_headers": "위치|원래 토큰|모델이 보는 것|레이블|목표",
    "pre.targets": "각 목표 위치에서 모델의 추측",
    "pre.target_headers": "위치|원래 토큰|모델이 보는 것|처리|상위 추측|p(원래 토큰)|−log p",
    "pre.treatment.mask": "[MASK]로 바꿈",
    "pre.treatment.random": "무작위 토큰으로 바꿈",
    "pre.treatment.keep": "그대로 둠",
    "pre.loss": "이 문장의 MLM 손실: **{loss:.3f}** (목표 위치 {n}곳에서 원래 토큰의 −log p 평균)",
    "pre.nsp": "다음 문장 (BERT)",
    "pre.nsp.about": (
        "BERT 학습용 문장 쌍의 절반은 실제로 이웃한 문장(IsNext)이었고, 나머지 절반은 문장 B를 다른 문서에서 "
        "가져왔어요(NotNext). 실제로 이어지는 문장을 넣어 본 다음, 무작위 문장으로 바꿔 보세요."
    ),
    "pre.swap": "문장 B를 무작위 문장으로 바꾸기 (NotNext)",
    "pre.embeddings": "입력 임베딩 (BERT)",
    "pre.embeddings.about": (
        "BERT에서 각 토큰의 입력 벡터는 학습된 벡터 세 개의 **합**이에요. 토큰 자체의 임베딩, 세그먼트 임베딩(문장 A "
        "또는 B), 위치 임베딩(0, 1, 2, …)을 더한 뒤 층 정규화를 거쳐요. 표는 id를 보여 주고, 차트는 각 벡터의 길이를 "
        "보여 줘요."
    ),
    "pre.first": "문장 A",
    "pre.second": "문장 B (선택)",
    "pre.show": "입력 표현 보기",
    "pre.embedding_headers": "토큰|토큰 id|세그먼트 id|위치 id|‖토큰‖|‖세그먼트‖|‖위치‖|‖합‖",
    "pre.ids": "id와 임베딩 크기",
    "pre.norms": "임베딩 크기",
    "pre.causal": "인과적 언어 모델 (GPT-2)",
    "pre.causal.about": (
        "GPT-2는 앞의 토큰들로부터 모든 다음 토큰을 예측하도록 학습돼요(교사 강요, teacher forcing: 자기 추측이 "
        "아니라 항상 실제 텍스트를 읽어요). 손실은 실제 다음 토큰의 −log p 평균이고, 퍼플렉서티 = exp(손실)은 모델이 "
        "똑같이 그럴듯한 선택지 몇 개 사이에서 고르는 만큼 불확실한지를 나타내요."
    ),
    "pre.causal_run": "모든 다음 토큰 채점하기",
    "pre.causal_headers": "지금까지의 입력|목표|p|−log p|순위",
    "pre.causal_table": "교사 강요, 위치별로 보기",
    "pre.causal_plot": "위치별 손실",
    "pre.causal_loss": "평균 손실 **{loss:.3f}** nats · 퍼플렉서티 **{perplexity:.1f}**",
    # why: attention from the prediction beside attribution of it
    "why.title": "왜 그럴까? 예측 위치의 어텐션과, 예측이 무엇에 달려 있는지",
    "why.about": (
        "위의 예측을 같은 토큰들 위에서 두 가지 방식으로 봐요. **어텐션**: 한 층에서 예측 위치(`[MASK]`, `[CLS]` "
        "또는 마지막 토큰)가 어디에서 정보를 읽어 오는지. **기여도(attribution)**: 표시된 확률이 각 입력 토큰에 "
        "얼마나 달려 있는지를 그래디언트 × 입력과 통합 그래디언트(integrated gradients, 일반 토큰을 모두 패딩으로 "
        "바꾼 기준선에서 출발)로 계산해요. 파란색은 음수, 주홍색은 양수이고, 각 행은 그 행의 가장 큰 값에 맞춰 "
        "조정돼요. 몇 초 걸리기 때문에 요청할 때만 실행해요."
    ),
    "why.layer": "어텐션 층",
    "why.head": "헤드",
    "why.mean": "헤드 평균",
    "why.head_n": "헤드 {head}",
    "why.run": "이 예측 설명하기",
    "why.plot": "토큰별 어텐션과 기여도",
    "why.spearman": (
        "예측 위치의 어텐션(층 {layer}, {head})과 통합 그래디언트 크기 사이의 순위 상관(스피어만), 토큰 {n}개 기준: "
        "**ρ = {rho:+.2f}**."
    ),
    "why.completeness": (
        "통합 그래디언트의 합은 {total:.4f}(으)로, 확률 {p:.4f}에서 기준선의 {base:.4f}을(를) 뺀 값과 같아요 "
        "({steps}단계에서 오차 {gap:.1e})."
    ),
    "why.disagree": (
        "두 결과가 다를 수 있는 이유: 어텐션은 한 층 안의 한 단계일 뿐이에요. 한 위치가 어디에서 읽어 오는지는 알려 "
        "주지만, 출력이 읽어 온 것에 얼마나 달려 있는지는 알려 주지 않아요. 그 사이에 값 벡터, 다른 헤드, 뒤쪽 층, "
        "잔차 스트림이 모두 끼어 있기 때문이에요. 기여도는 각 토큰에 대한 출력의 민감도를 직접 재요. 그래서 어떤 "
        "토큰은 어텐션을 많이 받아도 별로 중요하지 않을 수 있고(흔히 `[SEP]`), 그 반대일 수도 있어요."
    ),
    "why.link": "[어텐션 탭에서 이 층과 헤드 열기]({url})",
    "why.mask": "몇 번째 [MASK] (1 = 첫 번째)",
    "why.guess": "몇 번째 추측 (1 = 가장 좋은 것)",
    "why.entity": "몇 번째 개체 (1 = 표의 첫 번째)",
    "why.sequence": "몇 번째 시퀀스 (1 = 첫 번째): 마지막 토큰을 설명해요",
    "why.sequence_range": "1에서 {n} 사이의 시퀀스를 고르세요. 화면의 생성 결과에는 시퀀스가 {n}개 있어요.",
    # links
    "link.button": "링크 만들기",
    "link.placeholder": "이 입력값으로 이 탭을 여는 링크 (클릭하면 복사돼요)",
    "link.label": "공유할 링크",
    "link.copied": "✓ 링크를 복사했어요. 원하는 곳에 붙여 넣으세요.",
    "link.ready": "✓ 링크가 준비됐어요. 상자에서 복사하세요.",
    "lesson.step": "{n}단계 중 {k}단계",
    "lesson.english_only": "이 단계의 모델은 영어만 읽어서 문장도 영어예요",
    "lesson.models": "모델: {models}",
    "lesson.previous": "← 이전",
    "lesson.next": "다음 →",
    "lesson.title": "나만의 수업: 원하는 순서의 페이지를 링크 하나로",
    "lesson.how": "학생들에게 보여 줄 모습으로 페이지를 설정하고 **링크 만들기**를 누르세요. 단계마다 이렇게 한 뒤 **내가 만든 링크 채우기**를 누르고(또는 링크를 한 줄에 하나씩 붙여 넣고), 원하는 링크 뒤에 학생들을 위한 메모를 적은 다음(같은 줄, 한 칸 띄우고) **수업 링크 만들기**를 누르세요. 이 링크를 열면 단계가 하나씩 나타나요(단계 번호, 메모, 이전·다음). 각 단계는 단계별 안내처럼 실행되고, 수업을 만든 언어로 열려요. 단계는 최대 12개, 메모는 최대 200자예요.",
    "lesson.steps": "단계: 한 줄에 페이지 링크 하나, 그 뒤에 메모 (선택)",
    "lesson.steps_placeholder": "…/?tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1 어떤 단어가 1위일까요?",
    "lesson.fill": "내가 만든 링크 채우기",
    "lesson.make": "수업 링크 만들기",
    "lesson.label": "수업 링크",
    "lesson.placeholder": "수업 링크가 여기에 나타나요. 학생들과 공유하세요",
    "lesson.empty": "아직 링크가 없어요. 페이지 링크(링크 만들기 버튼으로 만든 것)를 한 줄에 하나씩 붙여 넣으세요.",
    "lesson.not_a_page": "{row}번째 줄이 이 앱의 페이지 링크로 시작하지 않아요({link}). 페이지의 링크 만들기 버튼으로 복사하세요.",
    "lesson.note_long": "{row}번째 줄의 메모 길이: {count}자. 메모는 최대 {most}자까지 쓸 수 있어요. 줄여 주세요.",
    "lesson.too_many": "수업 하나에는 최대 {most}단계까지 넣을 수 있어요. 지금 단계 수: {count}. 줄을 지우거나 수업을 두 개로 나누세요.",
    "lesson.too_long": "이 수업의 링크 길이: {count}자. 최대 {most}자까지 가능해요. 메모나 페이지의 텍스트를 줄이거나 수업을 두 개로 나누세요.",
    "lesson.too_much": "이 수업의 페이지에 든 텍스트: {count}자. 수업 하나에는 최대 {most}자까지 넣을 수 있어요. 페이지의 텍스트를 줄이거나 수업을 두 개로 나누세요.",
    "lesson.damaged": "이 수업 링크가 손상되었거나 잘려서 단계를 읽을 수 없어요. 링크를 다시 받아 전체를 복사하세요.",
    # start here
    "tutor.tab": "AI 튜터의 도구",
    "tutor.page": (
        "### AI 튜터의 도구\n\n"
        "이 페이지에는 AI 어시스턴트가 앱의 MCP 서버(`/gradio_api/mcp/`)로 호출하는 엔드포인트가 있어요: "
        "마스크 채우기, 분류, 개체명 찾기, 답 찾기, 생성, 모델 내부 보기. 페이지 아래쪽의 API 링크에서 각각이 받는 "
        "값을 볼 수 있어요. 앱의 페이지들은 [시작 페이지](./)의 내비게이션에 있어요."
    ),
    "start.tab": "여기서 시작",
    "start.intro": (
        "**BERT**(Google, 2018)와 **GPT-2**(OpenAI, 2019)는 모두 레이블 없는 일반 텍스트로 학습한 Transformer 층의 "
        "묶음이에요. 두 모델은 *각 토큰이 어떤 토큰을 볼 수 있는가* 하는 한 가지 결정에서 달라지고, 그 결정이 각자 "
        "잘하는 일을 정해요."
    ),
    "start.table": (
        "| | BERT | GPT-2 |\n"
        "|---|---|---|\n"
        "| Transformer의 어느 부분 | 인코더 | 디코더 |\n"
        "| 어텐션 | 양방향: 모든 토큰이 모든 토큰을 봄 | 인과적: 각 토큰은 자기 앞의 토큰만 봄 |\n"
        "| 사전 학습 목표 | 마스크된 단어 채우기(토큰의 15%) + 문장 B가 다음 문장인가? | 모든 위치에서 다음 토큰 "
        "예측 |\n"
        "| 토큰 | WordPiece (`play ##ing`) | 바이트 수준 BPE (`␣playing`) |\n"
        "| 잘하는 일 | 이해: 분류, 태깅, 텍스트에서 답 찾기 | 글쓰기: 텍스트 이어 쓰기 |\n"
        "| 쓰는 방법 | 작은 헤드를 붙여 과제에 미세 조정 | 프롬프트와 샘플링 |"
    ),
    "start.path": (
        "### 단계별 안내\n"
        "각 단계는 예시가 들어 있는 탭을 열고 실행해요. 그다음 입력을 바꿔 다시 실행해 보세요."
    ),
    "start.glossary_title": "용어 사전",
    "start.glossary": (
        "- **토큰(token)**: 모델이 한 단위로 읽는 텍스트 조각이에요. 단어, 단어의 일부, 기호일 수 있어요.\n"
        "- **WordPiece**: BERT의 토크나이저예요. 어휘에 없는 단어는 조각으로 나누고, `##`는 단어를 이어 가는 조각을 "
        "표시해요.\n"
        "- **BPE (바이트 수준)**: GPT-2의 토크나이저예요. 자주 나오는 바이트 쌍을 합쳐요. 어휘에서는 앞에 붙은 "
        "공백을 `Ġ`로 쓰지만, 이 앱은 모든 보기와 모든 모델에서 앞 공백을 `␣`로(줄바꿈은 `↵`로) 보여 줘요.\n"
        "- **부분 문자** `나[1/3]`: 바이트 수준 BPE는 UTF-8 바이트 단위로 동작해서, 한글이나 가나 한 글자(3바이트)나 "
        "이모지(4바이트)가 여러 토큰으로 나뉠 수 있어요. 이런 토큰은 그 글자와 함께 그 글자의 몇 번째 바이트를 담고 "
        "있는지 보여 줘요(`나[1/3]`: 나를 이루는 3바이트 중 1번째 바이트).\n"
        "- **임베딩**: 토큰을 나타내는 벡터예요. BERT는 토큰, 세그먼트, 위치 임베딩을 더해요.\n"
        "- **층(layer)**: Transformer 블록 하나(어텐션 다음에 피드포워드 신경망)예요. BERT-base와 GPT-2는 12개 "
        "층으로 되어 있어요.\n"
        "- **헤드**: 한 층 안에서 나란히 동작하는 어텐션 메커니즘 하나예요(두 모델 모두 층마다 12개). 헤드마다 "
        "자기만의 패턴이 있어요.\n"
        "- **어텐션 가중치**: 한 토큰(쿼리)이 다른 토큰(키)에서 얼마나 가져오는지를 나타내요. 쿼리마다 가중치의 합은 "
        "1이에요.\n"
        "- **인과적 마스크**: GPT의 토큰이 자기 뒤에 있는 토큰에 어텐션할 수 없게 하는 규칙이에요.\n"
        "- **로짓(logit)**: softmax 전에 모델이 각 후보 토큰에 매기는 원시 점수예요.\n"
        "- **softmax**: 로짓을 양수이면서 합이 1인 확률로 바꿔요.\n"
        "- **온도(temperature)**: softmax 전에 로짓을 나누는 값이에요. 1보다 작으면 분포가 뾰족해지고, 1보다 크면 "
        "평평해져요.\n"
        "- **top-k / top-p**: 샘플링 필터예요. 가장 가능성 높은 k개 토큰만 / 확률의 합이 p에 이르는 가장 작은 집합만 "
        "남겨요.\n"
        "- **그리디(greedy) / 빔 탐색**: 항상 가장 가능성 높은 토큰 고르기 / 가장 좋은 부분 텍스트 몇 개를 "
        "유지하기예요.\n"
        "- **엔트로피**: 분포가 얼마나 퍼져 있는지를 비트 단위로 나타내요. 1비트 = 공정한 동전 하나.\n"
        "- **퍼플렉서티(perplexity)**: exp(손실)이에요. 모델이 똑같이 그럴듯한 선택지 몇 개 사이에서 고르는 만큼 "
        "불확실한지를 나타내요.\n"
        "- **미세 조정(fine-tuning)**: 사전 학습된 모델을 레이블이 있는 과제(감성 분석, 개체명, QA)로 조금 더 "
        "학습시키는 것이에요."
    ),
    # attention
    "attention.tab": "어텐션",
    "attention.about": (
        "모든 층에서 각 어텐션 **헤드**는 모든 토큰(**쿼리**, 행)이 모든 토큰(**키**, 열)에서 얼마나 읽어 올지 "
        "정하게 해요. 각 행의 합은 1이에요. 문장을 한 번 실행한 다음 슬라이더를 움직이거나 보기를 바꿔 보세요. "
        "저장된 가중치로 그림을 다시 그려요. 가중치를 `[CLS]`/`[SEP]`에 몰아주는 BERT 헤드를 찾아보고(*특수 토큰 "
        "숨기기*를 체크하면 나머지가 보여요), GPT-2의 맵은 대각선 위쪽이 비어 있다는 점에 주목하세요. GPT-2는 앞을 "
        "내다볼 수 없어요."
    ),
    "attention.text": "텍스트 (모델의 한도까지 읽음: BERT 512 토큰, GPT-2 1,024 토큰)",
    "attention.role": "모델",
    "attention.model": "체크포인트 (어떤 가중치를 쓸지)",
    "attention.role.encoder": "BERT (인코더: 양방향으로 읽음)",
    "attention.role.decoder": "GPT-2 (디코더: 왼쪽에서 오른쪽으로 읽음)",
    "attention.run": "어텐션 보기",
    "attention.view": "보기",
    "attention.view.head": "헤드 하나",
    "attention.view.layer": "층의 모든 헤드",
    "attention.view.overview": "모든 헤드 한눈에 보기",
    "attention.view.lines": "선 (헤드 하나)",
    "attention.view.mean": "층의 헤드 평균",
    "attention.view.rollout": "이 층까지의 롤아웃",
    "attention.view.focus": "쿼리 하나에 집중 (원래 해상도)",
    "attention.view.heads": "모든 헤드의 맵 (축소판)",
    "attention.layer": "층 (0 = 첫 번째)",
    "attention.head": "헤드 (0 = 첫 번째)",
    "attention.hide_special": "특수 토큰 숨기기([CLS], [SEP], <|endoftext|>) 및 각 행 다시 정규화",
    "attention.query": "집중: 쿼리 토큰 (위치)",
    "attention.span": "집중: 거기서부터의 쿼리 수",
    "attention.stat": "개요의 색 기준",
    "attention.stat.entropy": "엔트로피: 얼마나 퍼져 있는지",
    "attention.stat.to_special": "[CLS]/[SEP]에 가는 비율 (GPT-2: 첫 번째 토큰)",
    "attention.stat.to_previous": "바로 앞 토큰에 가는 비율",
    "attention.stat.to_self": "자기 자신에게 가는 비율",
    "attention.plot": "어텐션",
    "attention.tokens": "모델이 보는 토큰 (특수 토큰 표시)",
    "attention.special": "특수",
    "attention.read": "`{model}`이(가) **토큰 {n}개**를 읽었어요: {layers}개 층 × {heads}개 헤드.",
    "attention.truncated": (
        "**잘림:** 텍스트가 토큰 {total}개로 이루어져 있는데 처음 {shown}개만 보여요. 전부 보려면 텍스트를 줄이세요."
    ),
    "attention.export": "이 보기 내보내기 (CSV와 JSON)",
    "attention.files": "다운로드: 현재 보기의 바탕이 되는 수치",
    "attention.run_first": "먼저 텍스트의 어텐션을 보여 준 다음 내보내세요.",
    # BERT vs GPT-2
    "compare.tab": "BERT와 GPT-2 비교",
    "compare.about": (
        "같은 문장을 두 모델에 넣어 봐요. BERT의 어텐션은 어느 토큰으로든 갈 수 있지만, GPT-2의 인과적 마스크는 각 "
        "토큰이 자기 자신과 앞의 토큰만 보게 해요. 그래서 뒤쪽 토큰으로 가는 어텐션 비율은 모든 층에서 정확히 "
        "0이에요. 아래에서 그 의미를 확인해 보세요. 두 문장 속 한 단어, 양쪽에서 채우거나 왼쪽에서만 채우는 빈칸 "
        "하나, 그리고 숫자로 보는 두 모델이에요."
    ),
    "compare.text": "문장",
    "compare.run": "어텐션 비교하기",
    "compare.mask_plot": "GPT-2에서 누가 누구에게 어텐션할 수 있나",
    "compare.future_plot": "층별로 본 뒤쪽 토큰으로 가는 어텐션",
    "compare.layer": "층 (0 = 첫 번째)",
    "compare.head": "헤드 (0 = 첫 번째)",
    "compare.encoder_plot": "BERT: 헤드 하나",
    "compare.decoder_plot": "GPT-2: 헤드 하나",
    "compare.same.title": "### 같은 단어, 다른 문맥",
    "compare.same.about": (
        "어떤 단어까지는 같고 그 뒤가 다른 두 문장이에요. GPT-2는 왼쪽에서 오른쪽으로 읽기 때문에 두 문장에서 그 "
        "단어에 정확히 같은 벡터를 줘요(모든 층에서 유사도 1). BERT는 뒤에 오는 내용도 읽기 때문에 층을 거칠수록 두 "
        "벡터가 멀어져요. 뜻이 두 가지인 단어로 해 보세요."
    ),
    "compare.same.first": "첫 번째 문장",
    "compare.same.second": "두 번째 문장",
    "compare.same.word": "두 문장에 모두 있는 단어",
    "compare.same.run": "단어의 벡터 비교하기",
    "compare.same.plot": "단어의 두 벡터는 얼마나 비슷한가",
    "compare.same.clean": "두 문장은 '**{word}**'까지 같으므로 GPT-2의 두 벡터는 같아야 해요.",
    "compare.masked.title": "### 빈칸 하나, 두 독자",
    "compare.masked.about": (
        "문장에 `[MASK]`를 하나 넣으세요. BERT는 양쪽 단어를 모두 써서 빈칸을 채우지만, GPT-2는 빈칸 앞의 단어를 "
        "이어 쓸 수만 있어요. 단서를 빈칸 뒤에 두고(\"The [MASK] barked all night.\", \"[MASK]가 밤새 짖었다.\") "
        "어느 모델이 맞히는지 보세요."
    ),
    "compare.masked.text": "[MASK]가 정확히 하나 있는 문장",
    "compare.masked.run": "두 모델로 빈칸 채우기",
    "compare.masked.plot": "빈칸의 상위 추측",
    "compare.masked.left": "GPT-2가 읽는 부분: *{left}*",
    "compare.facts.title": "### 숫자로 보는 두 모델",
    "compare.facts.about": (
        "고른 모델의 크기, 구조, 속도예요. 순전파 시간은 지금 이 컴퓨터에서 짧은 문장 하나로 측정해요(세 번 실행한 "
        "값의 중앙값)."
    ),
    "compare.facts.run": "측정하기",
    "compare.facts.table": "모델 정보",
    "compare.facts.headers": "항목|BERT (인코더)|GPT-2 (디코더)",
    "compare.facts.model_id": "모델",
    "compare.facts.architecture": "구조",
    "compare.facts.layers": "층 수",
    "compare.facts.heads": "층당 어텐션 헤드 수",
    "compare.facts.hidden_size": "은닉 크기 (벡터 길이)",
    "compare.facts.parameters": "전체 파라미터 수",
    "compare.facts.body_parameters": "본체 파라미터 수 (임베딩 + 층, 논문에서 세는 방식)",
    "compare.facts.head_parameters": "위에 얹힌 헤드의 파라미터 수 (BERT는 MLM + NSP, GPT-2는 LM)",
    "compare.facts.missing_heads": "학습된 가중치가 없는 헤드 (해당 과제에서는 이 모델을 쓸 수 없음)",
    "compare.facts.tied": "{n:,} (출력층이 토큰 임베딩을 재사용하므로 본체에 포함해 셈)",
    "compare.facts.kind.learned_absolute": "학습된 절대 위치",
    "compare.facts.kind.sinusoidal_absolute": "사인파 절대 위치",
    "compare.facts.kind.bidirectional": "양방향",
    "compare.facts.kind.causal": "인과적(단방향)",
    "compare.facts.head.mlm": "가려진 단어 (MLM)",
    "compare.facts.head.nsp": "다음 문장 (NSP)",
    "compare.facts.head.lm": "다음 토큰 (LM)",
    "compare.facts.none": "없음",
    "compare.memory": (
        "지금 이 서버의 메모리에 있는 모델: {models}. 예산 {budget:.1f} GB 중 {used:.2f} GB 사용 중이에요 (가장 오래 "
        "쓰이지 않은 모델부터 내려요)."
    ),
    "compare.memory.model": "{model} ({gb:.2f} GB 사용)",
    "compare.facts.vocab_size": "어휘 크기",
    "compare.facts.position_embedding": "위치 임베딩",
    "compare.facts.max_positions": "표에 있는 위치 수",
    "compare.facts.max_length": "최대 입력 길이 (토큰)",
    "compare.facts.attention_type": "어텐션",
    "compare.facts.forward": "순전파 한 번",
    "compare.facts.forward_value": "{device}에서 토큰 {tokens}개에 {ms:.1f} ms",
    # errors (the backend's messages)
    "error.nothing_to_corrupt": "문장에 모델이 읽을 수 있는 단어가 없어요. 훼손할 문장을 입력하세요.",
    "error.token_ids_unfit": "토큰 id가 이 모델에 맞지 않아요. 텍스트부터 다시 시작하세요.",
    "error.word_missing": "단어 '{word}'이(가) {what} 문장에 없어요. 두 문장 모두에 나오는 단어를 고르세요.",
    "error.word_out_of_reach": "문장이 너무 길어서 {role} 모델이 그 단어까지 읽을 수 없어요. 문장을 줄이세요.",
    "error.one_mask": "단어가 빠진 자리에 [MASK]를 정확히 하나만 넣으세요. 이 문장에는 {n}개가 있어요.",
    "error.lens_model": "로짓 렌즈에는 GPT-2 계열 모델이 필요해요. '{model}'은(는) 그런 모델이 아니에요.",
    "error.label": "레이블은 {labels} 중 하나여야 해요. 입력값: {got}.",
    "error.no_entity": "이 텍스트에서 개체를 찾지 못해서 설명할 개체가 없어요.",
    "error.generate_first": "먼저 텍스트를 생성하세요. 설명 대상은 생성된 텍스트의 마지막 토큰이에요.",
    "error.no_baseline": "이 모델의 토크나이저에는 기준선으로 쓸 패딩, 텍스트 끝, 미지(unknown) 토큰이 없어요.",
    "error.aggregation": "알 수 없는 집계 방식이에요: '{got}'. 다음 중 하나를 고르세요: {choices}.",
    "error.no_mask_token": "인코더 모델 '{model}'에는 마스크 토큰이 없어서 마스크를 채울 수 없어요.",
    "error.missing_head.mlm": (
        "'{model}'에는 가려진 단어(MLM) 헤드가 없어서 마스크를 채울 수 없어요. 이 모델은 그 헤드 없이 공개되었어요. "
        "{instead}을(를) 고르거나, 이 모델을 어텐션, 비교, 입력 임베딩 보기에서 사용하세요."
    ),
    "error.missing_head.nsp": (
        "'{model}'에는 다음 문장(NSP) 헤드가 없어서 문장 B가 문장 A 다음에 오는지 판단할 수 없어요. 이 모델은 그 "
        "헤드 없이 공개되었어요. {instead}을(를) 고르거나, 이 모델을 어텐션, 비교, 입력 임베딩 보기에서 사용하세요."
    ),
    "error.missing_head.lm": (
        "'{model}'에는 다음 토큰(LM) 헤드가 없어서 텍스트를 예측하거나 생성할 수 없어요. 이 모델은 그 헤드 없이 "
        "공개되었어요. {instead}을(를) 고르거나, 이 모델을 어텐션이나 비교에서 사용하세요."
    ),
    "error.no_mask": "단어가 빠진 자리에 {mask}을(를) 하나 이상 넣으세요.",
    "error.too_many_masks": "마스크는 최대 {limit}개까지 쓸 수 있어요. 이 문장에는 {n}개가 있어요.",
    "error.attention_role": "어텐션은 'encoder'(BERT)와 'decoder'(GPT-2) 역할에 대해서만 보여 줘요. 입력값: {got}.",
    "error.view": "보기 중 하나를 고르세요: {choices}. 입력값: {got}.",
    "error.stat": "통계 중 하나를 고르세요: {choices}. 입력값: {got}.",
    "error.not_text": "{what}은(는) 텍스트여야 해요.",
    "error.empty": "{what}이(가) 비어 있어요. 먼저 문장을 입력하세요.",
    "error.too_long": "{what}이(가) {n:,}자예요. 최대 {limit:,}자까지 가능하니 줄여 주세요.",
    "error.not_number": "{what}은(는) {low}에서 {high} 사이의 숫자여야 해요. 입력값: {got}.",
    "error.out_of_range": "{what}은(는) {low}에서 {high} 사이여야 해요. 입력값: {got}.",
    "error.not_whole": "{what}은(는) {low}에서 {high} 사이의 정수여야 해요. 입력값: {got}.",
    "error.too_many_tokens": (
        "{what}이(가) 토큰 {n}개가 돼요. {role} 모델은 최대 {limit}개까지 읽을 수 있으니 줄여 주세요."
    ),
    "error.explain_tokens": (
        "설명은 최대 {limit}개 토큰까지 읽어요(기울기 계산마다 모든 토큰을 읽어요). 이 입력은 토큰 {n}개예요. "
        "줄여 주세요."
    ),
    "error.explain_time": (
        "설명이 제한 시간 {seconds:g}초를 넘었어요. 텍스트를 줄이거나 적분 기울기 단계 수를 줄이세요."
    ),
    "error.no_uploads": "이 앱은 파일 업로드를 받지 않아요.",
    "error.wrong_count": "{endpoint} 엔드포인트는 값 {count}개를 받아요: {names}. 보낸 값은 {got}개예요.",
    "error.not_your_event": "요청은 그 요청을 보낸 세션만 취소할 수 있어요.",
    "error.busy_session": "이미 기다리거나 실행 중인 요청이 {limit}개 있어요. 하나가 끝난 뒤 다시 시도하세요.",
    "error.busy_address": (
        "이 네트워크에서 이미 {limit}개의 요청이 기다리거나 실행 중이에요. 몇 개가 끝난 뒤 다시 시도하세요."
    ),
    "error.question_tokens": "질문이 토큰 {n}개가 돼요. {limit}개 미만으로 줄여 주세요.",
    "error.empty_context": "지문에 모델이 읽을 수 있는 단어가 없어요. 답을 찾을 텍스트를 붙여 넣으세요.",
    "error.strategy": "알 수 없는 전략이에요: '{got}'. 다음 중 하나를 고르세요: {choices}.",
    "error.beam_sequences": (
        "빔 탐색은 빔 하나당 최대 한 개의 시퀀스를 돌려줘요. 빔 수를 늘리거나 시퀀스 수를 줄이세요."
    ),
    "error.greedy_sequences": (
        "그리디 디코딩은 항상 같은 텍스트를 만들어요. 시퀀스를 하나만 요청하거나 샘플링 전략을 고르세요."
    ),
    "error.prompt_tokens": (
        "프롬프트가 토큰 {n}개이고 새 토큰 {new}개를 요청했는데, 디코더는 최대 {limit}개까지만 읽을 수 있어요. "
        "프롬프트를 줄이거나 토큰 수를 줄여 요청하세요."
    ),
    "error.not_offered": "'{model}'은(는) {role} 역할로 제공되지 않아요. 다음 중 하나를 고르세요: {choices}.",
    "error.word_missing.first": "첫 번째",
    "error.word_missing.second": "두 번째",
    'error.cluster_unreachable': '{address}의 모델 서버에 연결할 수 없어요({reason}). 잠시 후 다시 시도하세요. 계속 그렇다면 이 앱을 운영하는 분께 Ray 클러스터가 멈췄다고 알려 주세요(`ray status --address {address}`).',
    'error.cluster_not_deployed': '{address}의 모델 서버가 이 모델을 제공하지 않아요({reason}). 앱 운영자가 배포해야 해요: 헤드 노드에서 `serve deploy deploy/serve.yaml`.',
    'error.cluster_lost': '이 요청을 처리하던 모델 서버가 멈췄고 다른 서버가 이어받지 못했어요({reason}). 버튼을 다시 누르세요. 설정은 그대로 남아 있어요.',
    "error.model_unavailable": (
        "{role} 모델 '{model}'을(를) 불러오지 못했어요({reason}). 해결 방법: 인터넷이 되는 컴퓨터에서 `python -m "
        "bg_demo download DIR`을 실행하고 BG_DEMO_MODEL_DIR=DIR로 앱을 시작하거나, {env}을(를) 로컬 모델 폴더로 "
        "설정하세요. 다른 탭은 계속 작동하고, 이 탭은 다음 요청 때 다시 시도해요."
    ),
    "field.text": "텍스트",
    "field.input_ids": "input_ids",
    "field.first sentence": "첫 번째 문장",
    "field.top-k": "top-k",
    "field.second sentence": "두 번째 문장",
    "field.Top-p": "Top-p",
    "field.Token id": "토큰 id",
    "field.Temperature": "온도",
    "field.Seed": "시드",
    "field.word": "단어",
    "field.top_p": "top_p",
    "field.top_k": "top_k",
    "field.question": "질문",
    "field.prompt": "프롬프트",
    "field.max_tokens": "max_tokens",
    "field.layer": "층",
    "field.head": "헤드",
    "field.context": "지문",
    "field.Top-k": "Top-k",
    "field.Sequences": "시퀀스 수",
    "field.Repetition penalty": "반복 페널티",
    "field.No-repeat n-gram size": "반복 금지 n-그램 크기",
    "field.New tokens": "새 토큰 수",
    "field.Mask": "마스크",
    "field.Layer": "층",
    "field.Integrated-gradients steps": "통합 그래디언트 단계 수",
    "field.Head": "헤드",
    "field.Guess": "추측",
    "field.Entity": "개체",
    "field.Candidates shown": "표시할 후보 수",
    "field.Beams": "빔 수",
    "field.sentence": "문장",
    # figures and notes (bg_demo/figures, backend prose)
    "fig.axes.embeddings": "임베딩",
    "fig.axes.embeddings_short": "임베딩",
    "fig.axes.layer": "층 {layer}",
    "fig.attention.query": "쿼리",
    "fig.attention.key": "키",
    "fig.attention.weight": "가중치",
    "fig.attention.layer": "층",
    "fig.attention.head": "헤드",
    "fig.attention.head_n": "헤드 {head}",
    "fig.attention.key_axis": "키 (어텐션을 받는 쪽)",
    "fig.attention.query_axis": "쿼리 (어텐션하는 쪽)",
    "fig.attention.head_title": "층 {layer}, 헤드 {head}",
    "fig.attention.head_subtitle": "각 행은 쿼리, 각 열은 키",
    "fig.attention.layer_title": "층 {layer}: 헤드 {n_heads}개 전체",
    "fig.attention.stat.entropy": "엔트로피 (비트)",
    "fig.attention.stat.to_special": "[CLS]/[SEP]에 가는 비율 (GPT-2: 첫 번째 토큰)",
    "fig.attention.stat.to_previous": "바로 앞 토큰에 가는 비율",
    "fig.attention.stat.to_self": "자기 자신에게 가는 비율",
    "fig.attention.stat_short.entropy": "엔트로피",
    "fig.attention.stat_short.to_special": "[CLS]/[SEP] 비율",
    "fig.attention.stat_short.to_previous": "앞 토큰 비율",
    "fig.attention.stat_short.to_self": "자기 자신 비율",
    "fig.attention.overview_title": "모든 헤드 한눈에 보기: {stat}",
    "fig.attention.lines_subtitle": "왼쪽은 쿼리, 오른쪽은 키",
    "fig.attention.largest": "가장 큰 가중치",
    "fig.attention.pooled_subtitle": "각 칸은 {n}×{n} 토큰 중 가장 큰 가중치이며, '쿼리 하나에 집중'에서 모든 토큰을 볼 수 있습니다",
    "fig.attention.every_head_title": "모든 헤드: {layers}개 층 × {heads}개 헤드",
    "fig.attention.every_head_subtitle": "축소판 하나가 헤드 하나의 맵이며, 한 칸은 {n}×{n} 가중치 중 가장 큰 값",
    "fig.attention.every_head_full": "축소판 하나가 헤드 하나의 맵",
    "fig.attention.lines_thinned": "가장 강한 선 {n}개 (가중치 {weight} 이상); 열에 마우스를 올리면 모든 토큰이 보입니다",
    "fig.attention.focus_row": "고른 쿼리의 모든 키에 대한 가중치",
    "fig.attention.focus_map": "그 주변의 맵, 토큰 {start}–{end}",
    "fig.attention.focus_title": "층 {layer}, 헤드 {head}: '{query}' #{at}이(가) 보는 곳",
    "fig.attention.focus_subtitle": "가장 많이 보는 곳: {keys}",
    "fig.attention.mean_title": "층 {layer}: 헤드 평균",
    "fig.attention.rollout_title": "어텐션 롤아웃: 입력부터 층 {layer}까지",
    "fig.attention.mask_legend": "1 = 어텐션 가능, 0 = 마스킹됨",
    "fig.attention.mask_title": "인과적 마스크: 파란색 = 어텐션 가능",
    "fig.attention.model.encoder": "BERT (인코더)",
    "fig.attention.model.decoder": "GPT-2 (디코더)",
    "fig.attention.future_axis": "뒤쪽 토큰으로 가는 어텐션",
    "fig.attention.future_title": "뒤쪽 토큰으로 가는 어텐션",
    "fig.attention.future_subtitle": "각 토큰에서 오른쪽으로 가는 비율",
    "fig.attention.same_word_axis": "단어 벡터를 꺼낸 위치",
    "fig.attention.cosine": "코사인 유사도",
    "fig.attention.same_word_title": "두 문장 속 '{word}': 두 벡터는 얼마나 비슷할까?",
    "fig.attention.both_encoder": "빈칸 양쪽을 읽음",
    "fig.attention.both_decoder": "빈칸 앞의 단어만 읽음",
    "fig.alt.map": "{title}: 토큰 {n}개에 대한 히트맵으로, 행은 쿼리, 열은 키입니다. 가장 강한 가중치 {weight}은(는) '{query}'에서 '{key}'(으)로 갑니다.",
    "fig.alt.layer_heads": "{title}: 헤드마다 토큰 {n}개에 대한 작은 히트맵을 하나의 색 척도로 그렸습니다. 가장 강한 가중치 {weight}은(는) 헤드 {head}에 있으며 '{query}'에서 '{key}'(으)로 갑니다.",
    "fig.alt.overview": "{title}: 층 {layers}개 × 헤드 {heads}개의 격자입니다. 가장 높은 값은 층 {layer}, 헤드 {head}의 {value}입니다.",
    "fig.alt.lines": "{title}: 쿼리 토큰 {n}개(왼쪽)를 각각 어텐션하는 키(오른쪽)와 선으로 잇고, 가중치가 클수록 굵게 그렸습니다. 가장 강한 {weight}은(는) '{query}'에서 '{key}'(으)로 갑니다.",
    "fig.alt.every_head": "{title}: 토큰 {n}개에 대한 헤드별 작은 맵으로, 층은 아래로, 헤드는 옆으로 놓였습니다. 가장 강한 가중치는 층 {layer}, 헤드 {head}에 있습니다.",
    "fig.alt.focus": "{title}: 모든 키에 대한 그 행과, 원래 해상도로 본 주변의 맵. 가장 많이 보는 곳은 {keys}입니다.",
    "fig.alt.mask": "{title}: 토큰 {n}개에서 각 토큰은 자기 자신과 앞의 토큰에만 어텐션할 수 있고, 뒤의 토큰에는 할 수 없습니다.",
    "fig.alt.future": "{title}을(를) 층별로 BERT와 GPT-2 나란히 보여 줍니다: BERT는 어텐션의 최대 {encoder}을(를) 뒤쪽 토큰에 주고, GPT-2는 많아야 {decoder}입니다.",
    "fig.alt.same_word": "'{word}'의 두 벡터가 층마다 얼마나 비슷한지 모델별로 선 하나씩 그렸습니다. 마지막 층 뒤의 코사인 유사도는 BERT {encoder}, GPT-2 {decoder}입니다.",
    "fig.alt.masked_both": "빈칸의 상위 추측을 하나의 확률 척도로 보여 줍니다: BERT의 최선은 {encoder}, GPT-2의 최선의 다음 토큰은 {decoder}입니다.",
    "fig.explain.row.attention": "어텐션",
    "fig.explain.row.gradient_x_input": "그래디언트 × 입력",
    "fig.explain.row.integrated_gradients": "통합 그래디언트",
    "fig.explain.colorbar": "행 최댓값 대비 비율",
    "fig.explain.mean_heads": "헤드 평균",
    "fig.explain.head_n": "헤드 {head}",
    "fig.explain.title": "왜 {target} = {score}일까?",
    "fig.explain.subtitle": "층 {layer}의 어텐션 ({head}), {steps}단계로 계산한 기여도",
    "fig.explain.rows_axis": "행마다 각자의 척도",
    "fig.alt.explain": "{title}: 토큰 {n}개에 대한 세 행(어텐션, 그래디언트 × 입력, 통합 그래디언트)의 히트맵입니다. 통합 그래디언트는 '{token}'의 기여를 가장 크게 봅니다.",
    "fig.generation.token_title": "순위 {rank} · p = {p}",
    "fig.generation.legend": "새 토큰 각각의 확률: {swatches}",
    "fig.generation.kept": "남음",
    "fig.generation.dropped_top_p": "top-p에서 잘림",
    "fig.generation.dropped_top_k": "top-k에서 잘림",
    "fig.generation.after_temperature": "온도 적용 후",
    "fig.generation.rank": "순위",
    "fig.generation.model": "모델",
    "fig.generation.sampled_with": "샘플링 확률",
    "fig.generation.model_marker": "모델 (온도 1)",
    "fig.generation.cumulative_line": "누적 (top-p가 보는 값)",
    "fig.generation.entropy_title": "엔트로피 {before}비트 → 온도 적용 후 {after}비트",
    "fig.generation.can_sample": "샘플링할 수 있는 토큰 {n}개",
    "fig.generation.candidates_axis": "다음 토큰 후보 (높은 순)",
    "fig.generation.probability": "확률",
    "fig.generation.cumulative_axis": "누적 확률",
    "fig.generation.lens_after": "마지막 입력:",
    "fig.generation.lens_predicts": "예측:",
    "fig.generation.lens_final_rank": "최종 예측의 이 층에서의 순위",
    "fig.generation.lens_title": "각 층이 예측하는 다음 토큰",
    "fig.generation.lens_x": "어디까지 읽었나",
    "fig.generation.layer": "층",
    "fig.generation.beam_n": "빔 {n}",
    "fig.generation.step": "단계",
    "fig.generation.beam_title": "단계마다 유지된 빔",
    "fig.generation.new_tokens": "새 토큰 수",
    "fig.generation.beam_y": "최선 빔보다 낮은 로그 확률",
    "fig.generation.beam_total": "합계",
    "fig.alt.next_token": "가장 가능성 높은 다음 토큰 {n}개의 막대그래프로, 높은 순입니다. 온도 적용 후 1위는 {best}이고, 샘플링될 수 있는 토큰은 {kept}개입니다.",
    "fig.alt.lens": "층 {layers}개 각각이 위치 {n}개마다 다음으로 예측할 토큰의 히트맵입니다. 마지막 토큰('{token}') 뒤에서 마지막 층은 {best}을(를) 예측합니다.",
    "fig.alt.beams": "{steps}단계의 매 단계에서 상위 빔 {n}개를, 각 빔의 로그 확률이 최선 빔보다 얼마나 낮은지로 그렸습니다. 최선 빔은 합계 {score}(으)로 끝납니다: '{text}'.",
    "fig.pretraining.part.token": "토큰",
    "fig.pretraining.part.segment": "세그먼트",
    "fig.pretraining.part.position": "위치",
    "fig.pretraining.part.sum": "합",
    "fig.pretraining.part_embedding": "{part} 임베딩",
    "fig.pretraining.norms_title": "BERT 입력 임베딩의 길이",
    "fig.pretraining.l2": "L2 노름",
    "fig.pretraining.rank": "순위",
    "fig.pretraining.loss_title": "GPT-2가 다음 토큰마다 얼마나 놀라는지",
    "fig.pretraining.loss_subtitle": "점선: 평균 손실 {loss} (퍼플렉서티 {perplexity})",
    "fig.pretraining.target_axis": "목표 토큰",
    "fig.pretraining.loss_axis": "−log p (단위: nats)",
    "fig.alt.norms": "토큰 {n}개마다 토큰·세그먼트·위치 임베딩과 그 합의 길이를 나타낸 막대그래프입니다. 합이 가장 긴 것은 '{token}'({norm})입니다.",
    "fig.alt.loss": "다음 토큰 {n}개 각각에 대한 GPT-2의 손실 막대그래프입니다. 평균은 {loss}이고, 가장 의외인 토큰은 '{token}'({worst})입니다.",
    "fig.tasks.probability": "확률",
    "fig.tasks.mask_of": "[MASK] {i} ({n}개 중)",
    "fig.alt.guess": "'{token}'({score})",
    "fig.alt.fill_mask": "[MASK] {n}개 각각에 대한 BERT의 상위 추측 막대그래프로, 높은 순입니다. 최선: {best}.",
    "fig.alt.labels": "레이블 {n}개 각각의 확률 막대그래프로, 높은 순입니다. 가장 가능성 높은 것은 {best}입니다.",
    "note.compare.same_sentences": "두 문장이 똑같아요. 한 문장에서 '{word}' 뒤의 단어를 바꿔 보세요.",
    "note.compare.differ_before": (
        "두 문장이 '{word}' 앞이나 '{word}' 자체에서 달라서 GPT-2도 서로 다른 입력을 읽게 되고, 벡터가 달라질 수 "
        "있어요. 깔끔한 실험을 하려면 '{word}'까지는 완전히 똑같이 두세요."
    ),
    "note.compare.split.encoder": "인코더가 '{word}'을(를) 여러 토큰으로 나눠요. 그중 첫 번째 토큰을 비교해요.",
    "note.compare.split.decoder": "디코더가 '{word}'을(를) 여러 토큰으로 나눠요. 그중 첫 번째 토큰을 비교해요.",
    "note.explain.mask": "p({mask} 자리의 '{word}')",
    "note.explain.next": "p(다음 토큰 '{word}')",
    "note.explain.entity": "p('{text}'의 태그 = {label})",
    "note.explain.label": "p({label})",
    "note.explain.is_next": "p(IsNext)",
    "note.explain.no_answer": "p(답 없음)",
    "note.explain.answer": "p(답 '{answer}')",
    # bad input (issue 16)
    "input.this": "이 입력",
    "input.not_text": "‘{what}’에는 텍스트를 보내야 해요. 입력값: {got}.",
    "input.not_unicode": (
        "‘{what}’에 올바른 텍스트가 아닌 문자(\\ud800 같은 짝 없는 서로게이트)가 있어요. 그 문자를 지우거나 "
        "텍스트를 UTF-8로 보내세요."
    ),
    "input.number.between": "‘{what}’은(는) {low}에서 {high} 사이의 숫자여야 해요. 입력값: {got}.",
    "input.whole.between": "‘{what}’은(는) {low}에서 {high} 사이의 정수여야 해요. 입력값: {got}.",
    "input.number.at_least": "‘{what}’은(는) {low} 이상의 숫자여야 해요. 입력값: {got}.",
    "input.whole.at_least": "‘{what}’은(는) {low} 이상의 정수여야 해요. 입력값: {got}.",
    "input.number": "‘{what}’은(는) 숫자여야 해요. 입력값: {got}.",
    "input.whole": "‘{what}’은(는) 정수여야 해요. 입력값: {got}.",
    "input.not_choice": "‘{what}’은(는) 다음 중 하나여야 해요: {choices}. 입력값: {got}.",
    "input.no_choices": "‘{what}’에는 아직 고를 항목이 없어요. 값을 비워 두세요(null). 입력값: {got}.",
    "error.not_unicode": (
        "{what}에 올바른 텍스트가 아닌 문자(\\ud800 같은 짝 없는 서로게이트)가 있어요. 그 문자를 지우거나 "
        "텍스트를 UTF-8로 보내세요."
    ),
    # --- Fine-tune or prompt? -------------------------------------------------------------------------------------
    "ft.tab": "미세 조정이냐, 프롬프트냐?",
    "ft.about": (
        "**사전 학습된 모델이 과제를 배우는 두 가지 방법.** BERT와 GPT-1은 *미세 조정*해요. 맨 위에 작은 헤드를 "
        "얹고, 레이블이 있는 예시로 옵티마이저를 몇 단계 돌려 일부 가중치를 바꿔요. GPT-2와 GPT-3는 *프롬프트*로 "
        "써요. 과제를 텍스트 안에 적어 주고(제로샷), 풀이가 있는 예시를 몇 개 곁들이기도 하며(퓨샷), 가중치는 전혀 "
        "바뀌지 않아요. 여기서는 두 모델이 같은 예시와 같은 테스트 문장으로 한 과제를 두 방식 모두로 풀어요. 마지막 "
        "탭에서 네 가지를 나란히 비교해요."
    ),
    "ft.task": "과제",
    "ft.task.sentiment": "감성 분석 (레이블 2개)",
    "ft.task.topic": "주제 분류 (레이블 4개)",
    "ft.load": "기본 제공 과제 불러오기",
    "ft.data": "과제의 예시 (어느 칸이든 고칠 수 있어요. 한 행에 문장 하나)",
    "ft.train": "학습: 레이블이 있는 예시 (미세 조정은 이것으로 학습하고, 퓨샷 프롬프트는 그중 몇 개를 보여 줘요)",
    "ft.test": "테스트: 학습에 쓰지 않고 따로 둔 문장으로, 네 방법 모두 이것으로 채점해요",
    "ft.data_headers": "문장|레이블",
    "ft.add_row": "+ 행 추가",
    "ft.prompt_bert": "BERT · 프롬프트",
    "ft.prompt_gpt": "GPT-2 · 프롬프트",
    "ft.tune_bert": "BERT · 미세 조정",
    "ft.tune_gpt": "GPT-2 · 미세 조정",
    "ft.summary": "네 가지 모두",
    "ft.prompt.about.encoder": (
        "BERT는 빈칸을 채워요. 템플릿은 **레이블 단어**가 들어갈 자리에 `[MASK]`를 두고, 각 레이블은 마스크 자리에서 "
        "자기 단어가 받는 로짓으로 점수를 얻어요. 퓨샷은 풀이가 있는 예시(마스크 대신 그 예시의 단어를 넣은 것)를 "
        "앞에 적어 줘요."
    ),
    "ft.prompt.about.decoder": (
        "GPT-2는 텍스트를 이어 써요. 각 레이블은 프롬프트 바로 다음에 자기 **레이블 단어**가 올 확률로 점수를 얻어요. "
        "퓨샷은 풀이가 있는 예시를 앞에 적어 줘요. *보정*(calibration)은 내용 없는 입력 “N/A”로 잰 프롬프트 자체의 "
        "치우침을 나눠서 없애요."
    ),
    "ft.template": "템플릿 ({text} 자리에 각 문장이 들어가요)",
    "ft.words": "레이블 단어 (레이블마다 하나씩, 레이블 순서대로, 쉼표로 구분)",
    "ft.shots": "프롬프트 속 예시 수 (k-shot)",
    "ft.seed": "시드 (어떤 예시를 어떤 순서로 쓸지)",
    "ft.calibrate": "보정하기 (내용 없는 입력 사용)",
    "ft.prompt_run": "테스트 문장 채점하기",
    "ft.why_sentence": "몇 번째 테스트 문장 (1 = 첫 번째): 예측한 레이블의 이유",
    "ft.why_range": "1에서 {n} 사이의 테스트 문장을 고르세요. 화면의 결과에는 문장이 {n}개 있어요.",
    "error.prompt_first": "먼저 테스트 문장을 채점한 다음 이유를 물어보세요.",
    "ft.prompt_text": "모델이 읽는 텍스트 그대로 (첫 번째 테스트 문장)",
    "ft.prompt_tokens": "…토큰으로 보면",
    "ft.prompt_headline": (
        "**{model}** · {shots}-shot · 문장 {n}개에 대한 테스트 정확도 **{accuracy:.0%}**{calibrated} · "
        "가장 긴 프롬프트는 토큰 {longest}개 (한도 {limit}개) · 바뀐 가중치 없음"
    ),
    "ft.calibrated": " (보정 전: {raw:.0%})",
    "ft.label_words_line": "모델이 읽는 레이블 단어: {words}",
    "ft.scores": "테스트 문장마다 모든 레이블의 확률",
    "ft.continuation": "GPT-2가 이어 쓴 글",
    "ft.sentence": "문장",
    "ft.truth": "정답 레이블",
    "ft.predicted": "예측",
    "ft.right": "✓",
    "ft.wrong": "✗",
    "ft.confusion": "혼동 행렬: 행은 정답 레이블, 열은 예측한 레이블",
    "ft.confusion_corner": "정답 ╲ 예측",
    "ft.scores_headers": "문장|정답 레이블|p(레이블)|예측|",
    "ft.confusion_headers": "정답 ╲ 예측|레이블",
    "ft.method": "학습시킬 부분",
    "ft.method.head": "헤드만 (선형 프로브)",
    "ft.method.lora": "LoRA + 헤드",
    "ft.method.layers": "마지막 몇 층 + 헤드",
    "ft.layers": "학습할 마지막 층 수 (“마지막 몇 층 + 헤드”일 때)",
    "ft.steps": "옵티마이저 단계 수",
    "ft.rate": "학습률 (AdamW)",
    "ft.batch": "배치 크기",
    "ft.tune_seed": "시드 (헤드, LoRA, 배치)",
    "ft.train_run": "미세 조정하기",
    "ft.stop": "중지",
    "ft.tune.about.encoder": (
        "분류 헤드가 BERT의 `[CLS]` 벡터를 읽어요. 학습 표로 실제 AdamW 단계를 밟으면 헤드가 바뀌고, LoRA나 마지막 "
        "층을 고르면 BERT의 일부도 바뀌어요. 이 모델은 여러분만의 것이에요. 다른 사람의 페이지는 바뀌지 않아요."
    ),
    "ft.tune.about.decoder": (
        "GPT-1의 방법을 GPT-2에 적용해요. 분류 헤드가 마지막 토큰의 벡터를 읽고, 학습 표로 실제 AdamW 단계를 밟으면 "
        "헤드가 바뀌며, LoRA나 마지막 층을 고르면 GPT-2의 일부도 바뀌어요. 이 모델은 오직 여러분만의 것이에요."
    ),
    "ft.status.running": "단계 {step}/{steps} · 손실 {loss} · {seconds:.1f}초",
    "ft.status.stopping": "멈추는 중…",
    "ft.status.done": (
        "**{model}** · {method} · 예시 {n}개로 {step}단계 · 테스트 정확도 **{before:.0%} → {after:.0%}** · "
        "가중치 {total}개 중 {changed}개 바뀜 ({share})"
    ),
    "ft.status.stopped": (
        "**{steps}단계 중 {step}단계에서 멈췄어요**. 지금까지 배운 것으로 테스트 정확도 **{accuracy:.0%}**, "
        "배운 것은 그대로 남아 있어요."
    ),
    "ft.status.stop_after_end": (
        "**마지막 단계가 끝난 뒤에 중지를 눌렀어요**. 실행은 이미 {steps}단계를 모두 마쳤으니 이것이 전체 결과예요."
    ),
    "ft.status.no_weights": (
        "이번 실행은 GPU 워커 안에서 끝나기 전에 멈춰서, 학습된 가중치가 그곳에 남았어요. 직접 쓴 문장으로 "
        "시험해 보려면 다시 미세 조정하세요."
    ),
    "ft.curve": "학습하는 동안의 손실과 정확도",
    "ft.before_after": "테스트 문장마다 학습 전과 후",
    "ft.before_after_headers": "문장|정답 레이블|학습 전 p(정답)|학습 후 p(정답)|학습 후 예측|",
    "ft.map": "테스트 문장 벡터의 학습 전과 후",
    "ft.try": "직접 쓴 문장으로 내 모델 시험해 보기",
    "ft.try_run": "분류하기",
    "ft.try_result": "내가 미세 조정한 모델의 확률",
    "ft.summary.about": (
        "같은 테스트 문장에 대한 정확도를, 각 방법이 쓴 것(레이블이 있는 예시, 바뀐 가중치)과 함께 비교해요. "
        "먼저 네 페이지를 실행하세요. 아직 실행하지 않은 페이지는 “–”로 표시돼요."
    ),
    "ft.summary_headers": "방법|모델|사용한 레이블 예시 수|바뀐 가중치 수|테스트 정확도",
    "ft.way.prompt.encoder": "BERT 프롬프트 (빈칸 채우기, {shots}-shot)",
    "ft.way.prompt.decoder": "GPT-2 프롬프트 ({shots}-shot{calibrated})",
    "ft.way.calibrated": ", 보정함",
    "ft.way.tune.encoder": "BERT 미세 조정 ({method})",
    "ft.way.tune.decoder": "GPT-2 미세 조정 ({method})",
    "ft.way.checkpoint": "감성 분석 탭의 체크포인트 (SST-2로 미세 조정됨)",
    "ft.way.not_run": "아직 실행 안 함",
    "ft.sst2_examples": "67,349개 (SST-2)",
    "ft.all_weights": "전부 ({total})",
    "ft.checkpoint_run": "감성 분석 탭의 체크포인트도 채점하기",
    "ft.summary_plot": "방법별 테스트 정확도",
    "fig.ft.loss": "손실",
    "fig.ft.step": "단계",
    "fig.ft.accuracy": "정확도",
    "fig.ft.train_accuracy": "학습 정확도",
    "fig.ft.test_accuracy": "테스트 정확도",
    "fig.ft.curve_title": "미세 조정: {method}",
    "fig.ft.curve_subtitle": "단계 {step}/{steps} · 마지막 손실 {loss}",
    "fig.ft.before": "학습 전",
    "fig.ft.after": "학습 후",
    "fig.ft.predicted": "예측",
    "fig.ft.direction": "방향 {n}",
    "fig.ft.map_title": "헤드가 읽는 벡터를 2차원으로 (PCA)",
    "fig.ft.map_subtitle": "색: 정답 레이블 · 속이 빈 점: 틀린 예측",
    "fig.ft.wrong": "속이 빈 점: 틀린 예측",
    "fig.ft.map_head": "헤드만: 벡터는 그대로이고, 헤드가 벡터를 읽는 방식만 바뀌었습니다",
    "fig.alt.ft_curve": (
        "{n}단계에 걸친 학습 곡선입니다. 손실은 {first}에서 시작해 {last}에 이르렀고, 마지막 테스트 정확도는 "
        "{accuracy}입니다."
    ),
    "fig.alt.ft_map": (
        "테스트 문장 {n}개의 벡터를 미세 조정 전과 후로 나눠 2차원에 나타냈습니다. 테스트 정확도는 학습 전 {before}, "
        "학습 후 {after}입니다."
    ),
    "field.train": "학습 표",
    "field.test": "테스트 표",
    "field.label": "레이블",
    "field.label word": "레이블 단어",
    "field.template": "템플릿",
    "field.shots": "프롬프트 속 예시 수",
    "field.steps": "옵티마이저 단계 수",
    "field.learning rate": "학습률",
    "field.batch size": "배치 크기",
    "field.layers": "학습할 마지막 층 수",
    "error.task_rows": "{what}은(는) (문장, 레이블) 행의 목록이어야 해요. 입력값: {got}.",
    "error.task_row": "{what}의 {row}번째 행에는 문장과 레이블이 있어야 해요. 입력값: {got}.",
    "error.task_cell": "{what}의 {row}번째 행: {problem}",
    "error.task_no_text": "{what}의 {row}번째 행에 레이블은 있는데 문장이 없어요. 문장을 입력하거나 그 행을 비우세요.",
    "error.task_no_label": (
        "{what}의 {row}번째 행에 레이블이 없어요. 레이블(짧은 단어면 무엇이든)을 입력하거나 그 행을 비우세요."
    ),
    "error.task_too_many": "{what}에 행이 {n}개 있어요. 최대 {limit}개까지 가능하니 몇 개 지워 주세요.",
    "error.task_empty": "{what}이(가) 비어 있어요. (문장, 레이블) 행을 추가하거나 기본 제공 과제를 불러오세요.",
    "error.task_labels": "과제의 학습 표에는 서로 다른 레이블이 2개에서 {limit}개까지 있어야 해요. 지금은 {n}개예요.",
    "error.task_unknown_label": (
        "테스트 표에 학습 표의 어느 행에도 없는 레이블이 쓰였어요: {labels}. 학습 표의 레이블: {known}."
    ),
    "error.label_words": (
        "레이블마다 레이블 단어를 하나씩 쉼표로 구분해 적어 주세요 (레이블 {n}개: {labels}). 입력값: {got}."
    ),
    "error.label_words_repeat": "레이블마다 서로 다른 단어가 필요해요. 겹치는 단어: {got}.",
    "error.label_word_tokens": (
        "BERT는 마스크 자리에 토큰을 하나만 채우는데, 이 모델에서는 “{word}” 한 단어가 여러 토큰으로 나뉘어요: "
        "{pieces}. 토큰 하나로 된 단어(흔히 쓰는 짧은 단어)를 고르세요."
    ),
    "error.template_slot": "템플릿에서 각 문장이 들어갈 자리에 {slot} 표시가 있어야 해요.",
    "error.task_mask": "BERT의 프롬프트에는 레이블 단어 자리에 이미 {mask} 토큰이 있어서, 문장에 또 있으면 두 개가 됩니다. 다음 문장에서 지우세요: {text}",
    "error.template_mask": "BERT의 템플릿에는 레이블 단어가 들어갈 자리에 {mask} 토큰이 정확히 하나 있어야 해요.",
    "error.task_model": (
        "허용된 인코더 또는 디코더 모델(또는 “encoder” / “decoder”)을 고르세요. 입력값: {got}. 허용되는 값: {choices}."
    ),
    "error.tune_method": "학습시킬 부분을 고르세요. 다음 중 하나: {choices}. 입력값: {got}.",
    "error.tune_stopped_early": "첫 단계 전에 실행이 멈췄어요. ‘미세 조정하기’를 다시 누르세요.",
    "error.tune_nothing": "먼저 이 페이지에서 모델을 미세 조정한 다음, 직접 쓴 문장으로 시험해 보세요.",
    "error.tune_why_first": "먼저 이 페이지에서 모델을 미세 조정한 다음, 테스트 문장에 왜 그 레이블을 붙이는지 물어보세요.",
    "ft.why_tuned_sentence": "몇 번째 테스트 문장 (1 = 첫 번째): 내가 미세 조정한 모델이 그 레이블을 예측한 이유",
    "error.checkpoint_labels": (
        "감성 분석 탭의 체크포인트는 {known} 레이블만 알고, 이 과제의 {labels} 레이블은 몰라요. 영어 감성 분석 "
        "과제를 불러오세요(또는 체크포인트와 같은 이름으로 레이블을 붙이세요)."
    ),
    "error.export_failed": "서버에 파일을 쓰지 못했어요({reason}). 잠시 후 다시 내보내 보세요.",
    # --- AI 튜터 (MCP) ------------------------------------------------------------------------------------------------
    "error.head_needs_layer": "헤드는 층 안에서 고릅니다: 층도 함께 주세요.",
    "error.tutor_task": "설명할 것을 고르세요: {choices} 중 하나. 입력값: {got}.",
    "error.tool_argument_missing": "{tool}에 필요한 인수 `{argument}`이(가) 빠졌어요. 형식: {expected}.",
    "error.tool_argument_unknown": "{tool}에는 인수 `{argument}`이(가) 없어요. 받는 인수: {arguments}.",
    "error.tool_argument_type": "{tool}의 인수 `{argument}`은(는) {expected} 값이어야 해요. 입력값: {got}.",
    "error.call_given_up": "어시스턴트가 이 호출을 더는 기다리지 않아서 호출을 끝냈어요.",
    "tutor.prompt": (
        "당신은 \"BERT & GPT-2, 나란히\" 앱의 도구로 학생에게 BERT와 GPT-2를 가르치는 튜터입니다. 모든 도구는 실제 "
        "모델을 실행하고 그 수치를 JSON으로 돌려줍니다: 기억이 아니라 호출 결과를 근거로 답하세요.\n\n"
        "가르치는 순서:\n"
        "1. 두 사전학습 과제에서 시작하세요. fill_mask는 BERT가 빈칸을 양쪽 문맥으로 채우는 것(마스크 언어 모델링)을, "
        "next_sentence는 BERT의 두 번째 과제를 보여 줍니다. generate와 next_token은 GPT-2가 왼쪽 문맥만으로 다음 "
        "토큰을 예측하는 것(인과 언어 모델링)을 보여 줍니다.\n"
        "2. compare로 둘을 나란히 놓으세요: future_share는 BERT(양방향 어텐션)에서 0보다 크고 GPT-2(인과 마스크)에서는 "
        "정확히 0입니다. 단어와 두 번째 문장을 주면 same_word가 두 문장이 그 단어까지 같을 때 GPT-2의 벡터는 똑같이 "
        "남고 BERT의 벡터는 달라짐을 보여 줍니다.\n"
        "3. 디코딩: temperature, top_k, top_p를 바꿔 가며 next_token을 호출하고 \"final\"(실제로 뽑힐 확률)을 "
        "읽으세요. 그다음 전략마다 generate를 호출하세요. 같은 샘플을 다시 보여 줘야 하면 seed를 주세요.\n"
        "4. 모델 내부: attention_summary는 헤드별 수치(entropy, to_previous, to_first, to_sep)를 줍니다. to_previous가 "
        "1에 가까운 헤드는 이전 토큰 헤드입니다. [CLS], [SEP], GPT-2의 첫 토큰에 몰린 어텐션은 의미라기보다 쉬는 "
        "자리인 경우가 많습니다. 헤드 하나의 지도(layer와 head)는 필요할 때만 요청하세요. logit_lens는 GPT-2의 예측이 "
        "층마다 만들어지는 과정을 보여 줍니다.\n"
        "5. 미세조정된 BERT: classify, entities, answer. 미세조정 대신 프롬프트: prompt_task로 같은 라벨 데이터에서 "
        "제로샷(shots 0)과 퓨샷을, BERT는 빈칸 채우기로, GPT-2는 이어 쓰기로 비교하세요.\n\n"
        "한국어와 일본어 텍스트: 기본 모델은 영어만 읽습니다(bert-base-uncased는 한글을 자모로, GPT-2는 바이트로 "
        "쪼갭니다). 그래서 그런 텍스트에서 나온 수치는 의미가 없습니다. model을 지정하세요: BERT 도구(fill_mask, "
        "next_sentence, attention_summary와 compare의 encoder, explain, prompt_task)에는 "
        "google-bert/bert-base-multilingual-cased를, GPT-2 도구(generate, next_token, logit_lens, attention_summary와 "
        "compare의 decoder)에는 한국어면 skt/kogpt2-base-v2를, 일본어면 rinna/japanese-gpt2-small을 주세요. classify, "
        "entities, answer의 모델은 영어만 읽습니다: 한국어나 일본어 텍스트에 쓰지 말고, 그런 결과를 성공처럼 전하지 "
        "마세요. \"warning\"이 있는 결과는 텍스트의 언어를 읽지 못하는 모델이 낸 것입니다: 그 use_model이 대신 줄 "
        "모델을 알려 줍니다.\n\n"
        "수치 읽는 법: \"score\"는 모델의 확률이지 정답일 확신이 아닙니다. 확률의 아주 작은 차이는 의미가 없습니다. "
        "토큰은 모델이 읽는 단위입니다(WordPiece 조각은 ##로 시작하고, GPT-2는 앞 공백을 ␣로 표시합니다).\n\n"
        "주장하지 말 것: 어텐션은 설명이 아닙니다. 어텐션 가중치는 헤드가 어디를 보았는지를 보여 줄 뿐, 모델이 왜 그렇게 "
        "예측했는지를 보여 주지 않습니다. \"왜\"라는 질문에는 explain을 호출하세요. 어텐션과 기여도(integrated "
        "gradients)를 나란히 보여 줍니다. spearman이 낮으면 둘이 어긋나며, 어떤 토큰이 중요했는지는 기여도가 더 나은 "
        "안내입니다. 모델이 \"이해한다\"거나 \"안다\"고 말하지 말고 수치가 보여 주는 것을 말하세요. 도구가 오류를 "
        "돌려주면 무엇을 고칠지 알려 줍니다: 입력을 고쳐 다시 호출하세요."
    ),
}
