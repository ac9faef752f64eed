"""Japanese: the same keys as `en.py`."""

JA: dict[str, str] = {
    "app.heading": "# BERT と GPT-2 を並べて比べる",
    "app.intro": (
        "事前学習済み Transformer の二本柱を、実際に動かしながら学べるガイドです。**BERT** "
        "は文全体を一度に読んで空欄を埋め、**GPT-2** は左から右へ読んで次の単語を書きます。"
        "タブを選んで例を試してから、自分でテキストを入力してみましょう。"
    ),
    "app.loading": "{role} モデル（{model}）を読み込んでいます。最初のリクエストは少し時間がかかります…",
    "app.role.encoder": "エンコーダ",
    "app.role.decoder": "デコーダ",
    "app.role.sentiment": "感情分析",
    "app.role.ner": "固有表現抽出",
    "app.role.qa": "質問応答",
    "app.gpu_service": (
        "このアプリが使う共有 GPU サービス（ZeroGPU）がこのリクエストを実行しませんでした。ZeroGPU からの元のメッセージ：{message}"
    ),
    "app.gpu_quota": (
        "このアプリが使う共有 GPU サービス（ZeroGPU）がこのリクエストを実行しませんでした。今日使える GPU 時間を使い切りました。"
        "{when}{sign_in}ZeroGPU からの元のメッセージ：{message}"
    ),
    "app.gpu_quota.when": "約 {hours} 時間 {minutes} 分後にまた使えます。",
    "app.gpu_quota.when_unknown": "ZeroGPU はいつまた使えるかを知らせていません。",
    "app.gpu_quota.sign_in": (
        "サインインしていないため、ZeroGPU は同じネットワークの全員（学校のルーター 1 台の後ろのクラス全体）で 1 つの枠を"
        "数えます。スタートページで Hugging Face にサインインすると、自分だけの枠がもらえます。"
    ),
    "gpu.note.quota": (
        "今日使える GPU 時間を使い切ったため、ZeroGPU は GPU を割り当てませんでした。代わりにこの Space の CPU で実行しました"
        "（少し遅くなります）。"
    ),
    "gpu.note.busy": "ZeroGPU に空いている GPU がなかったため、この Space の CPU で実行しました（少し遅くなります）。",
    "gpu.note.declared": (
        "今回の実行は ZeroGPU に GPU 時間を {seconds} 秒要求しました。このセッションでこれまでに要求したのは {total} 秒です。"
        "ZeroGPU は訪問者に 1 日 {anonymous} 秒、サインインすると {signed_in} 秒を割り当てます。"
    ),
    "gpu.sign_in": (
        "この Space は重い処理（生成、説明、ファインチューニング）を ZeroGPU で実行し、ZeroGPU は GPU 時間を訪問者ごとに"
        "数えます。サインインしないと 1 日 {anonymous} 秒を同じネットワークの全員（学校のルーター 1 台の後ろのクラス全体）で"
        "分け合い、サインインすると自分だけの {signed_in} 秒が使えます。BERT のタスクとアテンションの表示は Space の CPU で"
        "動き、GPU 時間を使いません。"
    ),
    "app.unexpected": (
        "このリクエストの実行中にサーバーで問題が起きました。もう一度試すか、もっと短いテキストで試してください。"
    ),
    "app.kept_result": "下の結果は前回の実行のもので、今の入力の結果ではありません。",
    "common.raw": "生の結果（API が返す JSON そのまま）",
    "common.summary": "要約",
    "common.examples": "例：クリックすると読み込んで実行します",
    "common.tokens": "モデルが見るトークン",
    "common.model.encoder": "BERT モデル（エンコーダ）",
    "common.model.decoder": "GPT-2 モデル（デコーダ）",
    "why.last": "最後",
    "generate.strategy.greedy": "greedy（貪欲法）",
    "generate.strategy.beam": "beam（ビームサーチ）",
    "generate.strategy.temperature": "temperature（温度付きサンプリング）",
    "generate.strategy.top_k": "top_k（top-k サンプリング）",
    "generate.strategy.top_p": "top_p（top-p サンプリング）",
    "ner.aggregation.none": "none（なし）",
    "ner.aggregation.simple": "simple（単純結合）",
    "ner.aggregation.first": "first（先頭トークン基準）",
    "ner.aggregation.average": "average（平均スコア）",
    "ner.aggregation.max": "max（最大スコア）",
    "start.step.1": "1 · BERT が空欄を埋める（マスク言語モデル）",
    "start.step.2": "2 · ファインチューニングした BERT：レビューは肯定的か否定的か",
    "start.step.3": "3 · ファインチューニングした BERT：人名・地名・組織名を見つける",
    "start.step.4": "4 · ファインチューニングした BERT：テキストから答えを探す",
    "start.step.5": "5 · 文 B は文 A の続き？（NSP）",
    "start.step.6": "6 · GPT-2 が書く：貪欲法、ビームサーチ、サンプリング",
    "start.step.7": "7 · 1 トークンずつ：次トークン実験室",
    "start.step.8": "8 · 両方の内部：アテンションヘッド",
    "start.step.9": "9 · 双方向と因果的（一方向）を並べて比べる",
    "start.step.10": "10 · BERT の学習方法：単語の 15% を隠す",
    "start.step.11": "11 · GPT-2 の学習方法：すべての次トークンを予測する",
    "start.step.12": "12 · ファインチューニングかプロンプトか？ 少数の例からタスクを学ぶ GPT-2",
    # fill-mask
    "fill_mask.tab": "マスク埋め",
    "fill_mask.about": (
        "BERT は単語を隠し、その空欄の**両側**の文脈から元の単語を当てることで事前学習されました。"
        "単語が抜けている場所に `[MASK]` を書くと（いくつでも構いません）、"
        "それぞれの上位の予測候補と確率が見られます。マスクの*後ろ*にある単語を変えてみてください。BERT "
        "は右側の文脈も読むので、予測が変わります。"
    ),
    "fill_mask.text": "[MASK] を 1 つ以上含む文",
    "fill_mask.top_k": "マスクごとの予測候補数（top-k）",
    "fill_mask.filled": "各マスクを最良の予測で埋めた文",
    "fill_mask.plot": "マスクごとの上位の予測",
    "fill_mask.run": "マスクを埋める",
    # sentiment
    "classify.tab": "感情分析",
    "classify.about": (
        "映画レビュー（SST-2）でファインチューニングした BERT 系エンコーダが、`[CLS]` "
        "トークンのベクトルをラベルごとの確率に変換します。良い点と悪い点が混ざったレビューや、否定表現（\"not bad "
        "at all\"、全然悪くない）を入れて、モデルがどれくらい確信しているか見てみましょう。"
    ),
    "classify.text": "分類するテキスト",
    "classify.scores": "各ラベルの確率",
    "classify.label.POSITIVE": "POSITIVE（肯定的）",
    "classify.label.NEGATIVE": "NEGATIVE（否定的）",
    "classify.run": "分類する",
    # entities
    "ner.tab": "固有表現",
    "ner.about": (
        "固有表現抽出用にファインチューニングした BERT モデルが、WordPiece トークンごとに BIO ラベルを付けます（B- "
        "は固有表現の始まり、I- はその続き、O は固有表現の外）。集約戦略は、"
        "トークンをどうまとめて固有表現にするかを決めます。**none** は生のトークンをそのまま（`##` の断片も含めて）"
        "表示し、**simple** は隣り合うトークンをまとめ、**first / average / max** はまず各単語のラベルを 1 "
        "つにそろえるので、固有表現は必ず単語単位になります。"
    ),
    "ner.text": "テキスト",
    "ner.aggregation": "集約戦略",
    "ner.entities": "見つかった固有表現",
    "ner.table": "固有表現（ラベル、テキスト、スコア、文字範囲）",
    "ner.token_tags": "集約前の各トークン自身のラベル",
    "ner.run": "固有表現を探す",
    "ner.table_headers": "ラベル|テキスト|スコア|開始|終了",
    # question answering
    "qa.tab": "質問応答",
    "qa.about": (
        "抽出型 QA モデルは答えを書くのではなく、"
        "コンテキストの中で答えが**始まる**位置と**終わる**位置を指し示します。"
        "長いコンテキストは重なり合うウィンドウに分けて読みます。`[CLS]` トークンのスコアがどのスパンよりも高いとき、"
        "モデルは「このテキストには答えがない」と言っています。"
    ),
    "qa.question": "質問",
    "qa.context": "コンテキスト（長いテキストは重なり合うウィンドウに分けて読みます）",
    "qa.answer": "答え",
    "qa.highlight": "コンテキスト中の答え",
    "qa.alternatives": "上位のスパン（スコアの高い順）",
    "qa.run": "答える",
    "qa.table_headers": "答え|スコア|開始|終了|ウィンドウ",
    "qa.found": "**{answer}**（確率 {score}、{windows} 個のウィンドウで読みました）",
    "qa.none": (
        "**答えなし**：モデルは、このコンテキストでは質問に答えられないと判断しました（答えなしのスコア {null:.2f} "
        "が、最良のスパン「{best}」のスコア {best_logit:.2f} を上回っています）。"
    ),
    "qa.none_no_span": "**答えなし**：モデルはコンテキストの中にスパンを見つけられませんでした。",
    # question answering: where the answer looks (the attention of its window, from its first and last tokens)
    "qa.attention.title": "答えが見ている所",
    "qa.attention.about": (
        "答えが出たウィンドウのアテンションを、答えの**最初**と**最後**のトークンから読みます。選んだ層とヘッドで、"
        "この 2 つのトークンがウィンドウ内の各トークン（質問、コンテキスト、`[CLS]`、`[SEP]`）にどれだけ注意を"
        "向けているかを示します。モデルがどこを見ているかであって、なぜそう答えたかではありません。"
        "`[CLS]` と `[SEP]` がほとんどを占めることもよくあります。"
    ),
    "qa.attention.run": "答えが見ている所を表示",
    "qa.attention.layer": "層（0 = 最初）",
    "qa.attention.head": "ヘッド（0 = 最初）",
    "qa.attention.plot": "答えからのアテンション",
    "qa.attention.read": "ウィンドウ {window}/{windows}、{n} トークン。答えはその中のトークン {start}–{end} です。",
    "qa.attention.no_answer": (
        "見る答えがありません。モデルはこのコンテキストでは質問に答えられないと判断しました。別の質問をするか、"
        "答えを含むコンテキストを入れて、もう一度「答える」を押してください。"
    ),
    "qa.attention.not_in_window": (
        "答え（文字 {start}–{end}）はウィンドウ {window} のコンテキストのトークンでできたスパンではありません。"
        "答えと一緒に返されたウィンドウと位置（`alternatives[0].window`、`start`、`end`）を渡してください。"
    ),
    "qa.attention.run_first": "先に「答える」を押してください。この表示は画面上の答えのアテンションを読みます。",
    "fig.qa_attention.title": "答えが見ている所：層 {layer}、ヘッド {head}",
    "fig.qa_attention.subtitle": "ウィンドウ {window}/{windows}（{n} トークン）、答え：{answer}",
    "fig.qa_attention.from_start": "最初のトークン {token} から",
    "fig.qa_attention.from_end": "最後のトークン {token} から",
    "fig.qa_attention.part.special": "特殊",
    "fig.qa_attention.part.question": "質問",
    "fig.qa_attention.part.context": "コンテキスト",
    "fig.qa_attention.answer": "答え",
    "fig.qa_attention.keys": "ウィンドウのトークン（キー）",
    "fig.qa_attention.weight": "アテンションの重み",
    "fig.qa_attention.alt": "{title}：ウィンドウ {window} の {n} 個のトークンの上に引いた 2 本の線で、答えの最初と最後のトークンからのアテンションです。最初のトークンが最も注意を向けるのは「{start_key}」（{start_weight}）、最後のトークンは「{end_key}」（{end_weight}）です。",
    # next sentence
    "nsp.tab": "次文予測",
    "nsp.about": (
        "BERT の 2 つ目の事前学習タスクです。文 A と文 B が与えられたとき、B は本の中で本当に A "
        "の次にあった文でしょうか、それともランダムに選ばれた文でしょうか。`[CLS]` のベクトルが小さな 2 "
        "クラス分類器に入力されます。セグメント ID（A は 0、B は 1）は、"
        "各トークンがどちらの文に属するかをモデルに伝えます。"
    ),
    "nsp.first": "文 A",
    "nsp.second": "文 B",
    "nsp.scores": "B は A の続き？",
    "nsp.is_next": "IsNext（続く）",
    "nsp.not_next": "NotNext（続かない）",
    "nsp.segments": "セグメントごとに色分けしたトークン（A = 0、B = 1）",
    "nsp.run": "予測する",
    # generation (GPT-2)
    "generate.tab": "生成",
    "generate.about": (
        "GPT-2 は 1 トークンずつ書きます。毎回、50,257 個のトークンに対する確率分布から 1 つを選びます。"
        "**貪欲法**（greedy）は常に最も確率の高いトークンを選び（よく同じ言葉を繰り返します）、"
        "**ビームサーチ**（beam）は上位いくつかの途中のテキストを保ちながら、全体として最も確率の高いものを返します。"
        "**サンプリング**はランダムに引きます。**温度**（temperature）は 1 より小さいと分布を鋭く、1 "
        "より大きいと平らにし、**top-k** は最も確率の高い k 個のトークンだけを、**top-p** は確率の合計が p "
        "に達する最小の集合だけを残します。同じシードからは同じサンプルが得られます。"
    ),
    "generate.prompt": "プロンプト（空欄 = テキスト開始トークンから始める）",
    "generate.strategy": "デコーディング戦略",
    "generate.max_new_tokens": "新しいトークン数（1–{high}）",
    "generate.temperature": "温度",
    "generate.top_k": "Top-k",
    "generate.top_p": "Top-p",
    "generate.num_beams": "ビーム数",
    "generate.num_return_sequences": "並べて表示する系列数",
    "generate.seed": "シード（空欄 = 毎回新しいランダムなシード。下に表示されます）",
    "generate.seed_empty": "ランダム",
    "generate.repetition": "繰り返しの制御",
    "generate.no_repeat": "繰り返しを禁止する n-gram のサイズ（0 = オフ）",
    "generate.penalty": "繰り返しペナルティ（1 = オフ）",
    "generate.run": "生成する",
    "generate.stop": "停止",
    "generate.output": (
        "生成されたテキスト：新しいトークンを、"
        "モデルがどれくらいありそうだと考えたかで色分けしています（カーソルを重ねると順位が表示されます）"
    ),
    "generate.beams": "ビームサーチを 1 ステップずつ",
    "generate.sequence": "系列 {n}",
    "generate.status": "新しいトークン {tokens} 個、{seconds:.1f} 秒（{rate:.1f} トークン/秒）{seed} · {why}",
    "generate.status_sequences": (
        "{sequences} 系列 × 新しいトークン {each} 個、{seconds:.1f} 秒（合計 {rate:.1f} トークン/秒）{seed} · {why}"
    ),
    "generate.status_seed": " · シード {seed}",
    "generate.streaming": "生成中… これまでに新しいトークン {tokens} 個{seed}",
    "generate.streaming_sequences": "生成中… {sequences} 系列 × これまでに新しいトークン {each} 個{seed}",
    "generate.waiting": "空きを待っています：あなたの前に {n} 件のリクエストがあります…",
    "generate.why.end of text": "テキスト終了トークンで停止",
    "generate.why.max new tokens": "新しいトークン数の上限で停止",
    "generate.why.time budget": "制限時間 {seconds:.0f} 秒で停止",
    "generate.why.stopped": "{tokens} トークンで停止（停止ボタン）",
    "generate.why.mixed": "{sequences} 系列中 {ended} 系列はテキスト終了トークンで停止、残りは{rest}",
    "generate.rest.max new tokens": "新しいトークン数の上限で停止",
    "generate.rest.time budget": "制限時間 {seconds:.0f} 秒で停止",
    "generate.rest.stopped": "停止ボタンで停止",
    # next-token lab
    "lab.tab": "次のトークン",
    "lab.page": (
        "1 トークンずつ、間近で見る生成です。**実験室**では GPT-2 が次のトークンを選ぶ分布を見て、1 ステップずつ"
        "自分で選べます。**ロジットレンズ**は層ごとのモデルの予測を示します。"
    ),
    "lab.sub": "次トークン実験室",
    "lab.about": (
        "生成の 1 ステップをスローモーションで見てみましょう。棒は温度を適用した後の、次のトークンの上位候補です。"
        "黒い印は温度 1 のときのモデル本来の確率です。灰色の棒は top-k で、オレンジ色の棒は top-p "
        "で切り捨てられたものです（top-p は緑の累積線が p に達するまでトークンを残します）。トークンを選ぶか、"
        "貪欲法のトークンを取るか、サンプリングして、テキストが伸びていく様子を見てください。"
    ),
    "lab.text": "ここまでのテキスト",
    "lab.top_k": "Top-k（0 = オフ）",
    "lab.top_p": "Top-p（1 = オフ）",
    "lab.show": "次トークンの分布を表示",
    "lab.greedy": "貪欲法のトークンを取る",
    "lab.sample": "1 つサンプリング",
    "lab.pick": "または候補を選ぶ",
    "lab.append": "選んだトークンを追加",
    "lab.context": "現在のテキスト",
    "lab.history": "これまでのステップ",
    "lab.history_headers": "ステップ|トークン|順位|確率|方法",
    "lab.how.greedy": "貪欲法",
    "lab.how.picked": "手動で選択",
    "lab.how.sample": "シード {seed} でサンプリング",
    "lab.plot": "次のトークンの候補",
    "lab.start_first": "まずテキストの分布を表示してください。",
    # logit lens
    "lens.sub": "ロジットレンズ",
    "lens.about": (
        "GPT-2 が 0 層目、1 層目、2 層目、… で止まったら、何を予測するでしょうか。各行は、"
        "ある層の隠れ状態を最後の層正規化と出力ヘッドに通して読み取ったものです。"
        "下の層は入力トークンをそのまま繰り返すことが多く、予測は上の層で形になっていきます。"
    ),
    "lens.text": "テキスト",
    "lens.run": "各層をのぞいてみる",
    "lens.plot": "層と位置ごとの予測",
    "lens.truncated": "最初の {n} トークンだけを表示しています。",
    # pretraining lab
    "pre.tab": "事前学習",
    "pre.about": (
        "BERT と GPT-2 がラベルなしの生のテキストから学んだ方法です。BERT は隠された単語を当てることと、2 "
        "つの文がつながっているかを見分けることで、GPT-2 はすべての次トークンを予測することで学びました。各パネルは、"
        "読み込んだモデルを使って、あなたの文で実際の学習目標を計算します。"
    ),
    "pre.mlm": "マスク言語モデル（BERT）",
    "pre.mlm.about": (
        "BERT は**15% のトークン**を予測対象として選びます。そのうち **80% は** `[MASK]` に、**10% "
        "は**ランダムなトークンに置き換えられ、**10% は**そのまま残ります。"
        "損失は対象の位置でのみ計算します（それ以外のラベル −100 は「無視」を意味します）。なぜ常に `[MASK]` "
        "にしないのでしょうか。後で BERT を使うときには `[MASK]` は現れません。"
        "そのためモデルは普通に見えるトークンも確かめることを学ぶ必要があり、"
        "しかもどのトークンを確かめるべきかは分かりません。"
    ),
    "pre.text": "文",
    "pre.seed": "シード（どのトークンが選ばれるか）",
    "pre.corrupt": "壊して予測する",
    "pre.reroll": "別のシード",
    "pre.tokens": "元のトークン、壊した入力とラベル",
    "pre.token_headers": "位置|元のトークン|モデルへの入力|ラベル|対象",
    "pre.targets": "各対象位置でのモデルの予測",
    "pre.target_headers": "位置|元のトークン|モデルへの入力|処理|上位の予測|p(元のトークン)|−log p",
    "pre.treatment.mask": "[MASK] に置換",
    "pre.treatment.random": "ランダムなトークンに置換",
    "pre.treatment.keep": "そのまま",
    "pre.loss": "この文の MLM 損失：**{loss:.3f}**（{n} 個の対象位置での元のトークンの −log p の平均）",
    "pre.nsp": "次文予測（BERT）",
    "pre.nsp.about": (
        "BERT の学習用の文ペアの半分は実際に隣り合う文（IsNext）で、残りの半分は文 B "
        "を別の文書から持ってきたもの（NotNext）でした。本当に続く文を試してから、"
        "ランダムな文に入れ替えてみましょう。"
    ),
    "pre.swap": "文 B をランダムな文に入れ替える（NotNext）",
    "pre.embeddings": "入力埋め込み（BERT）",
    "pre.embeddings.about": (
        "BERT の各トークンの入力ベクトルは、学習された 3 つのベクトルの**和**です。トークン自身の埋め込み、"
        "セグメント埋め込み（文 A か B か）、位置埋め込み（0、1、2、…）を足し、そのあと層正規化をかけます。表は ID "
        "を、グラフは各ベクトルの長さを示します。"
    ),
    "pre.first": "文 A",
    "pre.second": "文 B（省略可）",
    "pre.show": "入力表現を表示",
    "pre.embedding_headers": "トークン|トークン ID|セグメント ID|位置 ID|‖トークン‖|‖セグメント‖|‖位置‖|‖和‖",
    "pre.ids": "ID と埋め込みの大きさ",
    "pre.norms": "埋め込みの大きさ",
    "pre.causal": "因果言語モデル（GPT-2）",
    "pre.causal.about": (
        "GPT-2 は、前にあるトークンからすべての次トークンを予測するように学習します（教師強制、teacher "
        "forcing：自分の予測ではなく、常に本物のテキストを読みます）。損失は本当の次トークンの −log p の平均で、"
        "パープレキシティ = exp(損失) は、"
        "モデルが同じくらいありそうな選択肢いくつの間で迷っているのに相当するかを表します。"
    ),
    "pre.causal_run": "すべての次トークンを採点する",
    "pre.causal_headers": "ここまでの入力|対象|p|−log p|順位",
    "pre.causal_table": "教師強制を位置ごとに",
    "pre.causal_plot": "各位置の損失",
    "pre.causal_loss": "平均損失 **{loss:.3f}** nats · パープレキシティ **{perplexity:.1f}**",
    # why: attention from the prediction beside attribution of it
    "why.title": "なぜ？ 予測位置からのアテンションと、予測が何に依存しているか",
    "why.about": (
        "上の予測を、同じトークンの上で 2 通りに見ます。**アテンション**：ある層で、予測位置（`[MASK]`、`[CLS]`、"
        "または最後のトークン）がどこから情報を読んでいるか。**寄与度**（アトリビューション）"
        "：表示されている確率が各入力トークンにどれだけ依存しているかを、勾配 × 入力と統合勾配（integrated "
        "gradients。通常のトークンをすべてパディングにしたベースラインから計算）で測ります。青は負、朱色は正で、"
        "各行はその行の最大値でスケールしています。数秒かかるので、求められたときだけ実行します。"
    ),
    "why.layer": "アテンションの層",
    "why.head": "ヘッド",
    "why.mean": "ヘッドの平均",
    "why.head_n": "ヘッド {head}",
    "why.run": "この予測を説明する",
    "why.plot": "トークンごとのアテンションと寄与度",
    "why.spearman": (
        "予測位置からのアテンション（層 {layer}、{head}）と統合勾配の大きさの順位相関（スピアマン）、{n} "
        "トークンで：**ρ = {rho:+.2f}**。"
    ),
    "why.completeness": (
        "統合勾配の合計は {total:.4f} で、確率 {p:.4f} からベースラインでの {base:.4f} を引いた値になります（{steps} "
        "ステップでの誤差 {gap:.1e}）。"
    ),
    "why.disagree": (
        "2 つが食い違うことがある理由：アテンションは 1 つの層の中の 1 ステップにすぎません。"
        "ある位置がどこから読むかは教えてくれますが、出力が読んだ内容にどれだけ依存するかは教えてくれません。"
        "その間にはバリューベクトル、他のヘッド、後の層、残差ストリームがすべて入っているからです。"
        "寄与度は各トークンに対する出力の感度を直接測ります。そのため、"
        "多くのアテンションを集めてもあまり重要でないトークン（よくあるのは `[SEP]`）もあれば、その逆もあります。"
    ),
    "why.link": "[この層とヘッドをアテンションタブで開く]({url})",
    "why.mask": "どの [MASK]（1 = 最初）",
    "why.guess": "どの予測（1 = 最良）",
    "why.entity": "どの固有表現（1 = 表の最初）",
    "why.sequence": "どの系列（1 = 最初）：その最後のトークンを説明します",
    "why.sequence_range": "1 から {n} までの系列を選んでください。画面上の生成結果には {n} 個の系列があります。",
    # links
    "link.button": "このページへのリンク",
    "link.placeholder": "この入力でこのタブを開くリンク（クリックするとコピーされます）",
    "link.label": "共有するリンク",
    "link.copied": "✓ リンクをコピーしました。好きな場所に貼り付けてください。",
    "link.ready": "✓ リンクができました。ボックスからコピーしてください。",
    "lesson.step": "ステップ {k} / {n}",
    "lesson.english_only": "この段階のモデルは英語しか読めないので、文も英語です",
    "lesson.models": "モデル：{models}",
    "lesson.previous": "← 前へ",
    "lesson.next": "次へ →",
    "lesson.title": "自分の授業：好きな順のページを 1 つのリンクに",
    "lesson.how": "クラスに見せたい状態にページを設定して **このページへのリンク** を押します。ステップごとにこれを行い、**作ったリンクを入れる** を押すか（またはリンクを 1 行に 1 つ貼り付け）、必要なリンクの後ろにクラス向けのメモを書いて（同じ行に、スペースを空けて）**授業リンクを作る** を押します。そのリンクを開くと、ステップが 1 つずつ表示されます（ステップ番号、メモ、前へ・次へ）。各ステップはガイド付きの道順と同じように実行され、作ったときの言語で開きます。ステップは最大 12、メモは最大 200 文字です。",
    "lesson.steps": "ステップ：1 行にページのリンクを 1 つ、その後ろにメモ（任意）",
    "lesson.steps_placeholder": "…/?tab=fill_mask&text=The+cat+sat+on+the+%5BMASK%5D.&run=1 1 位の候補はどれ？",
    "lesson.fill": "作ったリンクを入れる",
    "lesson.make": "授業リンクを作る",
    "lesson.label": "授業リンク",
    "lesson.placeholder": "授業のリンクがここに表示されます。クラスと共有してください",
    "lesson.empty": "まだリンクがありません。ページのリンク（「このページへのリンク」ボタンで作ったもの）を 1 行に 1 つ貼り付けてください。",
    "lesson.not_a_page": "{row} 行目がこのアプリのページへのリンクで始まっていません（{link}）。ページの「このページへのリンク」ボタンからコピーしてください。",
    "lesson.note_long": "{row} 行目のメモは {count} 文字です。メモは最大 {most} 文字です。短くしてください。",
    "lesson.too_many": "1 つの授業は最大 {most} ステップです。この授業は {count} ステップあります。行を削除するか、2 つの授業に分けてください。",
    "lesson.too_long": "この授業のリンクは {count} 文字になります。最大 {most} 文字です。メモやページのテキストを短くするか、2 つの授業に分けてください。",
    "lesson.too_much": "この授業のページのテキストは {count} 文字です。1 つの授業は最大 {most} 文字です。ページのテキストを短くするか、2 つの授業に分けてください。",
    "lesson.damaged": "この授業のリンクは壊れているか途中で切れていて、ステップを読めません。リンクをもう一度受け取り、全体をコピーしてください。",
    # start here
    "tutor.tab": "AI チューターのツール",
    "tutor.page": (
        "### AI チューターのツール\n\n"
        "このページには、AI アシスタントがアプリの MCP サーバー（`/gradio_api/mcp/`）を通じて呼び出すエンドポイントが"
        "あります：マスク埋め、分類、固有表現、質問応答、生成、モデルの内部。ページ下部の API へのリンクで、それぞれが受け取る値を"
        "確認できます。アプリのページは[はじめにのページ](./)のナビゲーションにあります。"
    ),
    "start.tab": "はじめに",
    "start.intro": (
        "**BERT**（Google、2018 年）と **GPT-2**（OpenAI、2019 年）は、どちらもラベルのない普通のテキストで学習した "
        "Transformer 層の積み重ねです。違いは 1 つの設計上の選択、*各トークンがどのトークンを見てよいか*だけで、"
        "それが得意なことを決めています。"
    ),
    "start.table": (
        "| | BERT | GPT-2 |\n"
        "|---|---|---|\n"
        "| Transformer のどの部分か | エンコーダ | デコーダ |\n"
        "| アテンション | 双方向：すべてのトークンがすべてのトークンを見る | "
        "因果的：各トークンは自分より前のトークンだけを見る |\n"
        "| 事前学習の目的 | マスクした単語を埋める（トークンの 15%）+ 文 B は次の文か？ | "
        "すべての位置で次のトークンを予測 |\n"
        "| トークン | WordPiece（`play ##ing`） | バイトレベル BPE（`␣playing`） |\n"
        "| 得意なこと | 理解：分類、タグ付け、テキスト中の答え探し | 文章生成：テキストの続きを書く |\n"
        "| 使い方 | 小さなヘッドを付けてタスクでファインチューニング | プロンプトとサンプリング |"
    ),
    "start.path": (
        "### ガイド付きの道順\n"
        "各ステップは例の入ったタブを開いて実行します。そのあと入力を変えて、もう一度実行してみましょう。"
    ),
    "start.glossary_title": "用語集",
    "start.glossary": (
        "- **トークン**（token）：モデルが 1 単位として読むテキストの断片。単語、単語の一部、記号など。\n"
        "- **WordPiece**：BERT のトークナイザ。語彙にない単語は断片に分割され、`##` は単語の続きの断片を示します。\n"
        "- **BPE（バイトレベル）**：GPT-2 のトークナイザ。よく出るバイトの組を結合します。語彙では先頭の空白を `Ġ` "
        "と書きますが、このアプリではすべての表示、すべてのモデルで先頭の空白を `␣`（改行を `↵`）で表示します。\n"
        "- **部分文字** `나[1/3]`：バイトレベル BPE は UTF-8 のバイト単位で動くため、ハングルや仮名の 1 文字（3 "
        "バイト）や絵文字（4 バイト）が複数のトークンに分かれることがあります。そのようなトークンには、その文字と、"
        "そのうち何バイト目を持っているかが表示されます（`나[1/3]`：나 を構成する 3 バイトのうちの 1 バイト目）。\n"
        "- **埋め込み**：トークンを表すベクトル。BERT はトークン、セグメント、位置の埋め込みを足し合わせます。\n"
        "- **層**：Transformer ブロック 1 つ（アテンションの後にフィードフォワードネットワーク）。BERT-base と GPT-2 "
        "は 12 層です。\n"
        "- **ヘッド**：1 つの層の中で並列に働くアテンション機構の 1 つ（どちらのモデルも 1 層あたり 12 個）。"
        "それぞれが独自のパターンを持ちます。\n"
        "- **アテンションの重み**：あるトークン（クエリ）が別のトークン（キー）からどれだけ取り込むか。"
        "各クエリの重みの合計は 1 です。\n"
        "- **因果マスク**：GPT のトークンが自分より後ろのトークンにアテンションできないようにする規則。\n"
        "- **ロジット**（logit）：softmax の前にモデルが各候補トークンに与える生のスコア。\n"
        "- **softmax**：ロジットを、正で合計が 1 になる確率に変換します。\n"
        "- **温度**（temperature）：softmax の前にロジットを割る値。1 より小さいと分布が鋭くなり、1 "
        "より大きいと平らになります。\n"
        "- **top-k / top-p**：サンプリングのフィルタ。最も確率の高い k 個のトークンだけ / 確率の合計が p "
        "に達する最小の集合だけを残します。\n"
        "- **貪欲法 / ビームサーチ**：常に最も確率の高いトークンを取る / 上位いくつかの途中のテキストを保つ。\n"
        "- **エントロピー**：分布がどれだけ広がっているかをビットで表したもの。1 ビット = 公平なコイン 1 枚。\n"
        "- **パープレキシティ**（perplexity）：exp(損失)。"
        "モデルが同じくらいありそうな選択肢いくつの間で迷っているのに相当するかを表します。\n"
        "- **ファインチューニング**：事前学習済みモデルを、ラベル付きのタスク（感情分析、固有表現、QA）"
        "でもう少し学習させること。"
    ),
    # attention
    "attention.tab": "アテンション",
    "attention.about": (
        "各層で、それぞれのアテンション**ヘッド**は、すべてのトークン（**クエリ**、行）が、"
        "すべてのトークン（**キー**、列）からどれだけ読むかを決めます。各行の合計は 1 です。文を一度実行したら、"
        "スライダーを動かしたり表示を切り替えたりしてみてください。図は保存された重みから描き直されます。"
        "`[CLS]`/`[SEP]` に重みを集中させる BERT "
        "のヘッドを探してみましょう（*特殊トークンを隠す*にチェックすると残りが見えます）。また、GPT-2 "
        "のマップは対角線より上が空であることに注目してください。GPT-2 は先を見ることができません。"
    ),
    "attention.text": "テキスト（モデルの上限まで読む：BERT は 512 トークン、GPT-2 は 1,024 トークン）",
    "attention.role": "モデル",
    "attention.model": "チェックポイント（どの重みを使うか）",
    "attention.role.encoder": "BERT（エンコーダ：両方向に読む）",
    "attention.role.decoder": "GPT-2（デコーダ：左から右へ読む）",
    "attention.run": "アテンションを表示",
    "attention.view": "表示",
    "attention.view.head": "1 つのヘッド",
    "attention.view.layer": "層のすべてのヘッド",
    "attention.view.overview": "全ヘッドの一覧",
    "attention.view.lines": "線（1 つのヘッド）",
    "attention.view.mean": "層のヘッドの平均",
    "attention.view.rollout": "この層までのロールアウト",
    "attention.view.focus": "1 つのクエリに注目（元の解像度）",
    "attention.view.heads": "全ヘッドのマップ（縮小版）",
    "attention.layer": "層（0 = 最初）",
    "attention.head": "ヘッド（0 = 最初）",
    "attention.hide_special": "特殊トークンを隠す（[CLS]、[SEP]、<|endoftext|>）と各行の再正規化",
    "attention.query": "注目：クエリトークン（位置）",
    "attention.span": "注目：そこからのクエリ数",
    "attention.stat": "一覧の色分けの基準",
    "attention.stat.entropy": "エントロピー：どれだけ広がっているか",
    "attention.stat.to_special": "[CLS]/[SEP] への割合（GPT-2：最初のトークン）",
    "attention.stat.to_previous": "直前のトークンへの割合",
    "attention.stat.to_self": "自分自身への割合",
    "attention.plot": "アテンション",
    "attention.tokens": "モデルが見るトークン（特殊トークンに印付き）",
    "attention.special": "特殊",
    "attention.read": "`{model}` は **{n} トークン**を読みました：{layers} 層 × {heads} ヘッド。",
    "attention.truncated": (
        "**切り詰め：** テキストは {total} トークンありますが、最初の {shown} トークンだけを表示しています。"
        "すべて見るにはテキストを短くしてください。"
    ),
    "attention.export": "この表示をエクスポート（CSV と JSON）",
    "attention.files": "ダウンロード：現在の表示の元になっている数値",
    "attention.run_first": "まずテキストのアテンションを表示してから、エクスポートしてください。",
    # BERT vs GPT-2
    "compare.tab": "BERT 対 GPT-2",
    "compare.about": (
        "同じ文を両方のモデルに通します。BERT のアテンションはどのトークンにも向けられますが、GPT-2 "
        "の因果マスクは各トークンに自分自身とそれより前のトークンしか見せません。そのため、"
        "後ろのトークンへのアテンションの割合はすべての層で正確に 0 です。下で、その意味を確かめましょう。2 "
        "つの文の中の 1 つの単語、両側から埋めるか左側だけから埋めるかの 1 つの空欄、そして数字で見る 2 "
        "つのモデルです。"
    ),
    "compare.text": "文",
    "compare.run": "アテンションを比べる",
    "compare.mask_plot": "GPT-2 では誰が誰にアテンションできるか",
    "compare.future_plot": "後ろのトークンへのアテンション（層ごと）",
    "compare.layer": "層（0 = 最初）",
    "compare.head": "ヘッド（0 = 最初）",
    "compare.encoder_plot": "BERT：1 つのヘッド",
    "compare.decoder_plot": "GPT-2：1 つのヘッド",
    "compare.same.title": "### 同じ単語、違う文脈",
    "compare.same.about": (
        "ある単語までは同じで、その後が異なる 2 つの文です。GPT-2 は左から右へ読むので、"
        "その単語には両方の文でまったく同じベクトルを与えます（すべての層で類似度 1）。BERT "
        "は後に続く部分も読むので、層を重ねるごとに 2 つのベクトルが離れていきます。2 "
        "つの意味を持つ単語で試してみましょう。"
    ),
    "compare.same.first": "1 つ目の文",
    "compare.same.second": "2 つ目の文",
    "compare.same.word": "両方の文にある単語",
    "compare.same.run": "単語のベクトルを比べる",
    "compare.same.plot": "単語の 2 つのベクトルの類似度",
    "compare.same.clean": "2 つの文は「**{word}**」まで同じなので、GPT-2 の 2 つのベクトルは同じになるはずです。",
    "compare.masked.title": "### 1 つの空欄、2 人の読み手",
    "compare.masked.about": (
        "文に `[MASK]` を 1 つ入れてください。BERT は両側の単語を使って空欄を埋めますが、GPT-2 "
        "は空欄より前の単語の続きを書くことしかできません。手がかりを空欄の後ろに置いて（\"The [MASK] barked all "
        "night.\"、「[MASK]が一晩中吠えていた。」）、どちらのモデルが当てられるか見てみましょう。"
    ),
    "compare.masked.text": "[MASK] をちょうど 1 つ含む文",
    "compare.masked.run": "両方で空欄を埋める",
    "compare.masked.plot": "空欄の上位の予測",
    "compare.masked.left": "GPT-2 が読むのはここだけ：*{left}*",
    "compare.facts.title": "### 数字で見る 2 つのモデル",
    "compare.facts.about": (
        "選んだモデルの大きさ、形、速度です。順伝播の時間は、今このマシンで短い文 1 つについて測ったものです（3 "
        "回実行した中央値）。"
    ),
    "compare.facts.run": "測定する",
    "compare.facts.table": "モデルの概要",
    "compare.facts.headers": "項目|BERT（エンコーダ）|GPT-2（デコーダ）",
    "compare.facts.model_id": "モデル",
    "compare.facts.architecture": "アーキテクチャ",
    "compare.facts.layers": "層数",
    "compare.facts.heads": "1 層あたりのアテンションヘッド数",
    "compare.facts.hidden_size": "隠れ層のサイズ（ベクトルの長さ）",
    "compare.facts.parameters": "全パラメータ数",
    "compare.facts.body_parameters": "本体のパラメータ数（埋め込み + 層。論文での数え方）",
    "compare.facts.head_parameters": "上に載ったヘッドのパラメータ数（BERT は MLM + NSP、GPT-2 は LM）",
    "compare.facts.missing_heads": "学習済みの重みがないヘッド（そのタスクではこのモデルを使えません）",
    "compare.facts.tied": "{n:,}（出力層はトークン埋め込みを再利用するため、本体に含めて数えています）",
    "compare.facts.kind.learned_absolute": "学習された絶対位置",
    "compare.facts.kind.sinusoidal_absolute": "正弦波の絶対位置",
    "compare.facts.kind.bidirectional": "双方向",
    "compare.facts.kind.causal": "因果的（一方向）",
    "compare.facts.head.mlm": "マスクした単語（MLM）",
    "compare.facts.head.nsp": "次の文（NSP）",
    "compare.facts.head.lm": "次のトークン（LM）",
    "compare.facts.none": "なし",
    "compare.memory": (
        "現在このサーバーのメモリにあるモデル：{models}。予算 {budget:.1f} GB のうち {used:.2f} GB "
        "を使用中です（最も長く使われていないモデルから先に解放されます）。"
    ),
    "compare.memory.model": "{model}（{gb:.2f} GB）",
    "compare.facts.vocab_size": "語彙サイズ",
    "compare.facts.position_embedding": "位置埋め込み",
    "compare.facts.max_positions": "表にある位置の数",
    "compare.facts.max_length": "最長の入力（トークン）",
    "compare.facts.attention_type": "アテンション",
    "compare.facts.forward": "1 回の順伝播",
    "compare.facts.forward_value": "{device} で {tokens} トークンに {ms:.1f} ms",
    # errors (the backend's messages)
    "error.nothing_to_corrupt": "文にモデルが読める単語がありません。壊す文を入力してください。",
    "error.token_ids_unfit": "トークン ID がこのモデルに合いません。テキストからやり直してください。",
    "error.word_missing": "単語「{word}」が{what}の文にありません。両方の文に出てくる単語を選んでください。",
    "error.word_out_of_reach": "文が長すぎて、{role} モデルがその単語まで届きません。文を短くしてください。",
    "error.one_mask": "単語が抜けている場所に [MASK] をちょうど 1 つ入れてください。この文には {n} 個あります。",
    "error.lens_model": "ロジットレンズには GPT-2 系のモデルが必要です。'{model}' はそうではありません。",
    "error.label": "ラベルは {labels} のいずれかでなければなりません。入力値：{got}。",
    "error.no_entity": "このテキストには固有表現が見つからなかったので、説明するものがありません。",
    "error.generate_first": "まずテキストを生成してください。説明の対象はその最後のトークンです。",
    "error.no_baseline": (
        "このモデルのトークナイザには、ベースラインに使えるパディング、テキスト終了、未知語のトークンがありません。"
    ),
    "error.aggregation": "不明な集約方法 '{got}' です。次のいずれかを選んでください：{choices}。",
    "error.no_mask_token": "エンコーダモデル '{model}' にはマスクトークンがないため、マスクを埋められません。",
    "error.missing_head.mlm": (
        "'{model}' にはマスクした単語（MLM）のヘッドがないため、マスクを埋められません。"
        "このモデルはそのヘッドなしで公開されています。{instead} を選ぶか、このモデルをアテンション、比較、"
        "入力埋め込みの表示で使ってください。"
    ),
    "error.missing_head.nsp": (
        "'{model}' には次文予測（NSP）のヘッドがないため、文 B が文 A の続きかどうかを判断できません。"
        "このモデルはそのヘッドなしで公開されています。{instead} を選ぶか、このモデルをアテンション、比較、"
        "入力埋め込みの表示で使ってください。"
    ),
    "error.missing_head.lm": (
        "'{model}' には次トークン（LM）のヘッドがないため、テキストを予測したり生成したりできません。"
        "このモデルはそのヘッドなしで公開されています。{instead} を選ぶか、"
        "このモデルをアテンションか比較で使ってください。"
    ),
    "error.no_mask": "単語が抜けている場所に {mask} を 1 つ以上入れてください。",
    "error.too_many_masks": "マスクは最大 {limit} 個までです。この文には {n} 個あります。",
    "error.attention_role": (
        "アテンションを表示できるのは 'encoder'（BERT）と 'decoder'（GPT-2）のロールだけです。入力値：{got}。"
    ),
    "error.view": "表示は次のいずれかを選んでください：{choices}。入力値：{got}。",
    "error.stat": "統計量は次のいずれかを選んでください：{choices}。入力値：{got}。",
    "error.not_text": "{what}はテキストでなければなりません。",
    "error.empty": "{what}が空です。まず文を入力してください。",
    "error.too_long": "{what}は {n:,} 文字あります。上限は {limit:,} 文字です。短くしてください。",
    "error.not_number": "{what}は {low} から {high} までの数値でなければなりません。入力値：{got}。",
    "error.out_of_range": "{what}は {low} から {high} の範囲でなければなりません。入力値：{got}。",
    "error.not_whole": "{what}は {low} から {high} までの整数でなければなりません。入力値：{got}。",
    "error.too_many_tokens": (
        "{what}は {n} トークンになります。{role} モデルが読めるのは最大 {limit} トークンです。短くしてください。"
    ),
    "error.explain_tokens": (
        "説明が読めるのは最大 {limit} トークンです（勾配の計算のたびにすべてのトークンを読みます）。この入力は "
        "{n} トークンになります。短くしてください。"
    ),
    "error.explain_time": (
        "説明が制限時間の {seconds:g} 秒を超えました。テキストを短くするか、積分勾配のステップ数を減らしてください。"
    ),
    "error.no_uploads": "このアプリはファイルのアップロードを受け付けません。",
    "error.wrong_count": "{endpoint} が受け取る値は {count} 個です：{names}。送られた値は {got} 個でした。",
    "error.not_your_event": "リクエストを取り消せるのは、そのリクエストを送ったセッションだけです。",
    "error.busy_session": (
        "待機中または実行中のリクエストがすでに {limit} 件あります。1 件終わってからもう一度試してください。"
    ),
    "error.busy_address": (
        "このネットワークからのリクエストがすでに {limit} 件、待機中または実行中です。"
        "いくつか終わってからもう一度試してください。"
    ),
    "error.question_tokens": "質問は {n} トークンになります。{limit} トークン未満にしてください。",
    "error.empty_context": "コンテキストにモデルが読める単語がありません。答えを探すテキストを貼り付けてください。",
    "error.strategy": "不明な戦略 '{got}' です。次のいずれかを選んでください：{choices}。",
    "error.beam_sequences": (
        "ビームサーチが返す系列は 1 ビームにつき最大 1 つです。ビーム数を増やすか、系列数を減らしてください。"
    ),
    "error.greedy_sequences": (
        "貪欲法のデコーディングは常に同じテキストになります。系列を 1 つにするか、"
        "サンプリングの戦略を選んでください。"
    ),
    "error.prompt_tokens": (
        "プロンプトが {n} トークンで、新しいトークンを {new} 個要求していますが、デコーダが読めるのは最大 {limit} "
        "トークンです。プロンプトを短くするか、要求するトークン数を減らしてください。"
    ),
    "error.not_offered": (
        "'{model}' は {role} のロールでは提供されていません。次のいずれかを選んでください：{choices}。"
    ),
    "error.word_missing.first": "1 つ目",
    "error.word_missing.second": "2 つ目",
    'error.cluster_unreachable': '{address} のモデルサーバーに接続できません（{reason}）。少し待ってからもう一度試してください。続く場合は、このアプリの管理者に Ray クラスタが止まっていることを伝えてください（`ray status --address {address}`）。',
    'error.cluster_not_deployed': '{address} のモデルサーバーはこのモデルを提供していません（{reason}）。アプリの管理者がデプロイする必要があります：ヘッドノードで `serve deploy deploy/serve.yaml`。',
    'error.cluster_lost': 'このリクエストを処理していたモデルサーバーが止まり、ほかのサーバーも引き継げませんでした（{reason}）。もう一度ボタンを押してください。設定はそのまま残っています。',
    "error.model_unavailable": (
        "{role} モデル '{model}' を読み込めませんでした（{reason}）。対処法：インターネットにつながるマシンで "
        "`python -m bg_demo download DIR` を実行し、BG_DEMO_MODEL_DIR=DIR を指定してアプリを起動するか、{env} "
        "にローカルのモデルフォルダを設定してください。他のタブはそのまま使えます。"
        "このタブは次のリクエストで再試行します。"
    ),
    "field.text": "テキスト",
    "field.input_ids": "input_ids",
    "field.first sentence": "1 つ目の文",
    "field.top-k": "top-k",
    "field.second sentence": "2 つ目の文",
    "field.Top-p": "Top-p",
    "field.Token id": "トークン ID",
    "field.Temperature": "温度",
    "field.Seed": "シード",
    "field.word": "単語",
    "field.top_p": "top_p",
    "field.top_k": "top_k",
    "field.question": "質問",
    "field.prompt": "プロンプト",
    "field.max_tokens": "max_tokens",
    "field.layer": "層",
    "field.head": "ヘッド",
    "field.context": "コンテキスト",
    "field.Top-k": "Top-k",
    "field.Sequences": "系列数",
    "field.Repetition penalty": "繰り返しペナルティ",
    "field.No-repeat n-gram size": "繰り返し禁止の n-gram サイズ",
    "field.New tokens": "新しいトークン数",
    "field.Mask": "マスク",
    "field.Layer": "層",
    "field.Integrated-gradients steps": "統合勾配のステップ数",
    "field.Head": "ヘッド",
    "field.Guess": "予測",
    "field.Entity": "固有表現",
    "field.Candidates shown": "表示する候補数",
    "field.Beams": "ビーム数",
    "field.sentence": "文",
    # figures and notes (bg_demo/figures, backend prose)
    "fig.axes.embeddings": "埋め込み",
    "fig.axes.embeddings_short": "埋込",
    "fig.axes.layer": "層 {layer}",
    "fig.attention.query": "クエリ",
    "fig.attention.key": "キー",
    "fig.attention.weight": "重み",
    "fig.attention.layer": "層",
    "fig.attention.head": "ヘッド",
    "fig.attention.head_n": "ヘッド {head}",
    "fig.attention.key_axis": "キー（アテンションされる側）",
    "fig.attention.query_axis": "クエリ（アテンションする側）",
    "fig.attention.head_title": "層 {layer}、ヘッド {head}",
    "fig.attention.head_subtitle": "各行がクエリ、各列がキー",
    "fig.attention.layer_title": "層 {layer}：全 {n_heads} ヘッド",
    "fig.attention.stat.entropy": "エントロピー（ビット）",
    "fig.attention.stat.to_special": "[CLS]/[SEP] への割合（GPT-2：最初のトークン）",
    "fig.attention.stat.to_previous": "直前のトークンへの割合",
    "fig.attention.stat.to_self": "自分自身への割合",
    "fig.attention.stat_short.entropy": "エントロピー",
    "fig.attention.stat_short.to_special": "[CLS]/[SEP] への割合",
    "fig.attention.stat_short.to_previous": "直前のトークンへの割合",
    "fig.attention.stat_short.to_self": "自分自身への割合",
    "fig.attention.overview_title": "全ヘッドの一覧：{stat}",
    "fig.attention.lines_subtitle": "左がクエリ、右がキー",
    "fig.attention.largest": "最大の重み",
    "fig.attention.pooled_subtitle": "各セルは {n}×{n} トークンの中で最大の重み。「1 つのクエリに注目」ですべてのトークンが見られます",
    "fig.attention.every_head_title": "全ヘッド：{layers} 層 × {heads} ヘッド",
    "fig.attention.every_head_subtitle": "縮小版 1 つが 1 ヘッドのマップで、1 セルは {n}×{n} の重みの最大値",
    "fig.attention.every_head_full": "縮小版 1 つが 1 ヘッドのマップ",
    "fig.attention.lines_thinned": "最も強い {n} 本の線（重み {weight} 以上）。列にカーソルを合わせるとすべてのトークンが出ます",
    "fig.attention.focus_row": "選んだクエリの全キーへの重み",
    "fig.attention.focus_map": "その周りのマップ（トークン {start}–{end}）",
    "fig.attention.focus_title": "層 {layer}、ヘッド {head}：「{query}」#{at} が見ているところ",
    "fig.attention.focus_subtitle": "最もよく見ているのは {keys}",
    "fig.attention.mean_title": "層 {layer}：ヘッドの平均",
    "fig.attention.rollout_title": "アテンションロールアウト：入力から層 {layer} まで",
    "fig.attention.mask_legend": "1 = アテンション可、0 = マスク",
    "fig.attention.mask_title": "因果マスク：青 = アテンション可",
    "fig.attention.model.encoder": "BERT（エンコーダ）",
    "fig.attention.model.decoder": "GPT-2（デコーダ）",
    "fig.attention.future_axis": "後ろのトークンへのアテンション",
    "fig.attention.future_title": "後ろのトークンへのアテンション",
    "fig.attention.future_subtitle": "各トークンから右側へ向かう割合",
    "fig.attention.same_word_axis": "単語ベクトルを取り出した位置",
    "fig.attention.cosine": "コサイン類似度",
    "fig.attention.same_word_title": "2 つの文の「{word}」：ベクトルはどれくらい似ている？",
    "fig.attention.both_encoder": "空欄の両側を読む",
    "fig.attention.both_decoder": "空欄より前の単語だけを読む",
    "fig.alt.map": "{title}：{n} 個のトークンのヒートマップで、行がクエリ、列がキーです。最も強い重み {weight} は「{query}」から「{key}」へ向かいます。",
    "fig.alt.layer_heads": "{title}：ヘッドごとに {n} 個のトークンの小さなヒートマップを、共通の色スケールで描いています。最も強い重み {weight} はヘッド {head} の「{query}」から「{key}」へのものです。",
    "fig.alt.overview": "{title}：{layers} 層 × {heads} ヘッドのグリッドです。最も高いのは層 {layer}、ヘッド {head} の {value} です。",
    "fig.alt.lines": "{title}：{n} 個のクエリトークン（左）それぞれを、アテンションするキー（右）と線で結び、重みが大きいほど太く描いています。最も強い {weight} は「{query}」から「{key}」へ向かいます。",
    "fig.alt.every_head": "{title}：{n} トークンについてヘッドごとの小さなマップを、層を縦に、ヘッドを横に並べています。最も強い重みは層 {layer}、ヘッド {head} にあります。",
    "fig.alt.focus": "{title}：全キーへのその行と、元の解像度で見たその周りのマップ。最もよく見ているのは {keys} です。",
    "fig.alt.mask": "{title}：{n} 個のトークンで、各トークンは自分自身と前のトークンにだけアテンションでき、後ろのトークンにはできません。",
    "fig.alt.future": "{title}を層ごとに BERT と GPT-2 で並べています：BERT はアテンションの最大 {encoder} を後ろのトークンに向け、GPT-2 は多くても {decoder} です。",
    "fig.alt.same_word": "「{word}」の 2 つのベクトルが各層の後でどれだけ似ているかを、モデルごとに 1 本の線で描いています。最後の層の後のコサイン類似度は BERT が {encoder}、GPT-2 が {decoder} です。",
    "fig.alt.masked_both": "空欄の上位の予測を共通の確率スケールで示します：BERT の最善は {encoder}、GPT-2 の最善の次のトークンは {decoder} です。",
    "fig.explain.row.attention": "アテンション",
    "fig.explain.row.gradient_x_input": "勾配 × 入力",
    "fig.explain.row.integrated_gradients": "統合勾配",
    "fig.explain.colorbar": "行の最大値に対する割合",
    "fig.explain.mean_heads": "ヘッドの平均",
    "fig.explain.head_n": "ヘッド {head}",
    "fig.explain.title": "なぜ {target} = {score} なのか",
    "fig.explain.subtitle": "層 {layer} のアテンション（{head}）、{steps} ステップで計算した寄与度",
    "fig.explain.rows_axis": "行ごとに独自のスケール",
    "fig.alt.explain": "{title}：{n} 個のトークンについて 3 行（アテンション、勾配 × 入力、統合勾配）のヒートマップです。統合勾配は「{token}」の寄与を最も大きく見ています。",
    "fig.generation.token_title": "順位 {rank} · p = {p}",
    "fig.generation.legend": "新しい各トークンの確率：{swatches}",
    "fig.generation.kept": "残る",
    "fig.generation.dropped_top_p": "top-p で除外",
    "fig.generation.dropped_top_k": "top-k で除外",
    "fig.generation.after_temperature": "温度適用後",
    "fig.generation.rank": "順位",
    "fig.generation.model": "モデル",
    "fig.generation.sampled_with": "サンプリング確率",
    "fig.generation.model_marker": "モデル（温度 1）",
    "fig.generation.cumulative_line": "累積（top-p が見る値）",
    "fig.generation.entropy_title": "エントロピー {before} ビット → 温度適用後 {after} ビット",
    "fig.generation.can_sample": "サンプリング可能なトークン {n} 個",
    "fig.generation.candidates_axis": "次のトークンの候補（高い順）",
    "fig.generation.probability": "確率",
    "fig.generation.cumulative_axis": "累積確率",
    "fig.generation.lens_after": "最後の入力：",
    "fig.generation.lens_predicts": "予測：",
    "fig.generation.lens_final_rank": "最終予測のこの層での順位",
    "fig.generation.lens_title": "各層が予測する次のトークン",
    "fig.generation.lens_x": "どこまで読んだか",
    "fig.generation.layer": "層",
    "fig.generation.beam_n": "ビーム {n}",
    "fig.generation.step": "ステップ",
    "fig.generation.beam_title": "各ステップで残ったビーム",
    "fig.generation.new_tokens": "新しいトークン数",
    "fig.generation.beam_y": "最善のビームとの対数確率の差",
    "fig.generation.beam_total": "合計",
    "fig.alt.next_token": "最も可能性の高い次のトークン {n} 個の棒グラフで、高い順です。温度をかけた後の 1 位は {best} で、サンプリングされうるトークンは {kept} 個です。",
    "fig.alt.lens": "{layers} 個の層それぞれが {n} 個の位置ごとに次に予測するトークンのヒートマップです。最後のトークン（「{token}」）の後、最後の層は {best} を予測します。",
    "fig.alt.beams": "{steps} ステップの各ステップで上位 {n} 本のビームを、対数確率が最善のビームよりどれだけ低いかで描いています。最善のビームは合計 {score} で終わります：「{text}」。",
    "fig.pretraining.part.token": "トークン",
    "fig.pretraining.part.segment": "セグメント",
    "fig.pretraining.part.position": "位置",
    "fig.pretraining.part.sum": "和",
    "fig.pretraining.part_embedding": "{part}埋め込み",
    "fig.pretraining.norms_title": "BERT の入力埋め込みの長さ",
    "fig.pretraining.l2": "L2 ノルム",
    "fig.pretraining.rank": "順位",
    "fig.pretraining.loss_title": "GPT-2 が各次トークンにどれだけ驚くか",
    "fig.pretraining.loss_subtitle": "破線：平均損失 {loss}（パープレキシティ {perplexity}）",
    "fig.pretraining.target_axis": "対象トークン",
    "fig.pretraining.loss_axis": "−log p（単位：nats）",
    "fig.alt.norms": "{n} 個のトークンごとに、トークン・セグメント・位置の埋め込みとその和の長さを示す棒グラフです。和が最も長いのは「{token}」（{norm}）です。",
    "fig.alt.loss": "{n} 個の次のトークンそれぞれに対する GPT-2 の損失の棒グラフです。平均は {loss} で、最も意外なトークンは「{token}」（{worst}）です。",
    "fig.tasks.probability": "確率",
    "fig.tasks.mask_of": "[MASK] {i}（{n} 個中）",
    "fig.alt.guess": "「{token}」（{score}）",
    "fig.alt.fill_mask": "{n} 個の [MASK] それぞれに対する BERT の上位の予測の棒グラフで、高い順です。最善：{best}。",
    "fig.alt.labels": "{n} 個のラベルそれぞれの確率の棒グラフで、高い順です。最も可能性が高いのは {best} です。",
    "note.compare.same_sentences": (
        "2 つの文がまったく同じです。どちらかの文で '{word}' より後の単語を変えてください。"
    ),
    "note.compare.differ_before": (
        "2 つの文は '{word}' より前か '{word}' 自体で異なるため、GPT-2 も違う入力を読むことになり、"
        "ベクトルが異なる可能性があります。きれいな実験にするには、'{word}' までをまったく同じにしてください。"
    ),
    "note.compare.split.encoder": "エンコーダは '{word}' を複数のトークンに分割します。最初のトークンを比較します。",
    "note.compare.split.decoder": "デコーダは '{word}' を複数のトークンに分割します。最初のトークンを比較します。",
    "note.explain.mask": "p({mask} の位置が '{word}')",
    "note.explain.next": "p(次のトークンが '{word}')",
    "note.explain.entity": "p('{text}' のタグが {label})",
    "note.explain.label": "p({label})",
    "note.explain.is_next": "p(IsNext)",
    "note.explain.no_answer": "p(答えなし)",
    "note.explain.answer": "p(答えが '{answer}')",
    # bad input (issue 16)
    "input.this": "この入力",
    "input.not_text": "「{what}」にはテキストを送ってください。入力値：{got}。",
    "input.not_unicode": (
        "「{what}」に正しいテキストではない文字（\\ud800 のような対になっていないサロゲート）があります。"
        "その文字を消すか、テキストを UTF-8 で送ってください。"
    ),
    "input.number.between": "「{what}」は {low} から {high} までの数値でなければなりません。入力値：{got}。",
    "input.whole.between": "「{what}」は {low} から {high} までの整数でなければなりません。入力値：{got}。",
    "input.number.at_least": "「{what}」は {low} 以上の数値でなければなりません。入力値：{got}。",
    "input.whole.at_least": "「{what}」は {low} 以上の整数でなければなりません。入力値：{got}。",
    "input.number": "「{what}」は数値でなければなりません。入力値：{got}。",
    "input.whole": "「{what}」は整数でなければなりません。入力値：{got}。",
    "input.not_choice": "「{what}」は次のいずれかでなければなりません：{choices}。入力値：{got}。",
    "input.no_choices": "「{what}」にはまだ選べる項目がありません。値を空（null）にしてください。入力値：{got}。",
    "error.not_unicode": (
        "{what}に正しいテキストではない文字（\\ud800 のような対になっていないサロゲート）があります。"
        "その文字を消すか、テキストを UTF-8 で送ってください。"
    ),
    # --- Fine-tune or prompt? -------------------------------------------------------------------------------------
    "ft.tab": "ファインチューニングか、プロンプトか？",
    "ft.about": (
        "**事前学習済みモデルがタスクを学ぶ 2 つの方法。** BERT（と GPT-1）は*ファインチューニング*します。"
        "上に小さなヘッドを載せ、ラベル付きの例でオプティマイザのステップを何回か進めて、一部の重みを変えます。"
        "GPT-2 と GPT-3 は*プロンプト*で使います。タスクをテキストの中に書き込み（ゼロショット）、"
        "解答付きの例をいくつか添えることもあり（フューショット）、重みは一切変わりません。"
        "ここでは両方のモデルが、同じ例と同じテスト文で、1 つのタスクを両方の方法で解きます。"
        "最後のタブで 4 つを並べて比べます。"
    ),
    "ft.task": "タスク",
    "ft.task.sentiment": "感情分析（ラベル 2 つ）",
    "ft.task.topic": "トピック分類（ラベル 4 つ）",
    "ft.load": "組み込みのタスクを読み込む",
    "ft.data": "タスクの例（どのセルも編集できます。1 行に 1 文）",
    "ft.train": "学習用：ラベル付きの例（ファインチューニングはこれで学習し、フューショットのプロンプトはその一部を見せます）",
    "ft.test": "テスト用：学習には使わずに取っておいた文。4 つの方法すべてをこれで採点します",
    "ft.data_headers": "文|ラベル",
    "ft.add_row": "+ 行を追加",
    "ft.prompt_bert": "BERT · プロンプト",
    "ft.prompt_gpt": "GPT-2 · プロンプト",
    "ft.tune_bert": "BERT · ファインチューニング",
    "ft.tune_gpt": "GPT-2 · ファインチューニング",
    "ft.summary": "4 つすべて",
    "ft.prompt.about.encoder": (
        "BERT は空欄を埋めます。テンプレートは**ラベル語**が入る場所に `[MASK]` を置き、"
        "各ラベルはマスク位置でのそのラベル語のロジットでスコアが付きます。フューショットでは、"
        "解答付きの例（マスクの代わりにその例のラベル語を入れたもの）を前に書きます。"
    ),
    "ft.prompt.about.decoder": (
        "GPT-2 はテキストの続きを書きます。各ラベルは、プロンプトのすぐ次にそのラベルの**ラベル語**が来る確率で"
        "スコアが付きます。フューショットでは解答付きの例を前に書きます。*キャリブレーション*（較正）は、"
        "内容のない入力「N/A」で測ったプロンプト自体の偏りを割って取り除きます。"
    ),
    "ft.template": "テンプレート（{text} が各文に置き換わります）",
    "ft.words": "ラベル語（ラベルごとに 1 つ、ラベルの順に、カンマ区切り）",
    "ft.shots": "プロンプト内の例の数（k-shot）",
    "ft.seed": "シード（どの例をどの順に使うか）",
    "ft.calibrate": "キャリブレーション（内容のない入力を使う）",
    "ft.prompt_run": "テスト文を採点する",
    "ft.why_sentence": "どのテスト文（1 = 最初）：予測したラベルの理由",
    "ft.why_range": "1 から {n} までのテスト文を選んでください。画面上の結果には {n} 文あります。",
    "error.prompt_first": "まずテスト文を採点してから、理由を尋ねてください。",
    "ft.prompt_text": "モデルが読むテキストそのまま（最初のテスト文）",
    "ft.prompt_tokens": "…トークンで見ると",
    "ft.prompt_headline": (
        "**{model}** · {shots}-shot · {n} 文でのテスト正解率 **{accuracy:.0%}**{calibrated} · "
        "最長のプロンプトは {longest} トークン（上限 {limit}） · 重みは一切変えていません"
    ),
    "ft.calibrated": "（キャリブレーション前：{raw:.0%}）",
    "ft.label_words_line": "モデルが読むラベル語：{words}",
    "ft.scores": "各テスト文：すべてのラベルの確率",
    "ft.continuation": "GPT-2 が書いた続き",
    "ft.sentence": "文",
    "ft.truth": "正解ラベル",
    "ft.predicted": "予測",
    "ft.right": "✓",
    "ft.wrong": "✗",
    "ft.confusion": "混同行列：行が正解ラベル、列が予測したラベル",
    "ft.confusion_corner": "正解 ╲ 予測",
    "ft.scores_headers": "文|正解ラベル|p(ラベル)|予測|",
    "ft.confusion_headers": "正解 ╲ 予測|ラベル",
    "ft.method": "学習させる部分",
    "ft.method.head": "ヘッドのみ（線形プローブ）",
    "ft.method.lora": "LoRA + ヘッド",
    "ft.method.layers": "最後の数層 + ヘッド",
    "ft.layers": "学習する最後の層の数（「最後の数層 + ヘッド」のとき）",
    "ft.steps": "オプティマイザのステップ数",
    "ft.rate": "学習率（AdamW）",
    "ft.batch": "バッチサイズ",
    "ft.tune_seed": "シード（ヘッド、LoRA、バッチ）",
    "ft.train_run": "ファインチューニングする",
    "ft.stop": "停止",
    "ft.tune.about.encoder": (
        "分類ヘッドが BERT の `[CLS]` ベクトルを読みます。学習用の表で実際に AdamW のステップを進めるとヘッドが変わり、"
        "LoRA や最後の数層を選ぶと BERT の一部も変わります。このモデルはあなただけのものです。"
        "ほかの人のページは変わりません。"
    ),
    "ft.tune.about.decoder": (
        "GPT-1 のやり方を GPT-2 に当てはめます。分類ヘッドが最後のトークンのベクトルを読み、学習用の表で実際に "
        "AdamW のステップを進めるとヘッドが変わり、LoRA や最後の数層を選ぶと GPT-2 の一部も変わります。"
        "このモデルはあなただけのものです。"
    ),
    "ft.status.running": "ステップ {step}/{steps} · 損失 {loss} · {seconds:.1f} 秒",
    "ft.status.stopping": "停止中…",
    "ft.status.done": (
        "**{model}** · {method} · {n} 個の例で {step} ステップ · テスト正解率 **{before:.0%} → {after:.0%}** · "
        "重み {total} 個のうち {changed} 個が変化（{share}）"
    ),
    "ft.status.stopped": (
        "**{steps} ステップ中 {step} ステップで停止しました**。ここまでの学習でテスト正解率 **{accuracy:.0%}**、"
        "学習した内容は残っています。"
    ),
    "ft.status.stop_after_end": (
        "**最後のステップの後に停止が押されました**。実行はすでに {steps} ステップをすべて終えていたので、これが"
        "全体の結果です。"
    ),
    "ft.status.no_weights": (
        "この実行は GPU ワーカーの中で最後まで進む前に止まったため、学習した重みはそこに残ったままです。"
        "自分の文で試すには、もう一度ファインチューニングしてください。"
    ),
    "ft.curve": "学習中の損失と正解率",
    "ft.before_after": "各テスト文の学習前と学習後",
    "ft.before_after_headers": "文|正解ラベル|学習前の p(正解)|学習後の p(正解)|学習後の予測|",
    "ft.map": "テスト文のベクトル（学習前と学習後）",
    "ft.try": "自分の文でモデルを試す",
    "ft.try_run": "分類する",
    "ft.try_result": "ファインチューニングしたモデルの確率",
    "ft.summary.about": (
        "同じテスト文での正解率を、それぞれの方法が使ったもの（ラベル付きの例、変えた重み）と並べて比べます。"
        "先に 4 つのページを実行してください。まだ実行していないページは「–」と表示されます。"
    ),
    "ft.summary_headers": "方法|モデル|使ったラベル付きの例|変えた重み|テスト正解率",
    "ft.way.prompt.encoder": "BERT をプロンプトで（穴埋め、{shots}-shot）",
    "ft.way.prompt.decoder": "GPT-2 をプロンプトで（{shots}-shot{calibrated}）",
    "ft.way.calibrated": "、キャリブレーションあり",
    "ft.way.tune.encoder": "BERT をファインチューニング（{method}）",
    "ft.way.tune.decoder": "GPT-2 をファインチューニング（{method}）",
    "ft.way.checkpoint": "感情分析タブのチェックポイント（SST-2 でファインチューニング済み）",
    "ft.way.not_run": "未実行",
    "ft.sst2_examples": "67,349 個（SST-2）",
    "ft.all_weights": "すべて（{total}）",
    "ft.checkpoint_run": "感情分析タブのチェックポイントも採点する",
    "ft.summary_plot": "方法ごとのテスト正解率",
    "fig.ft.loss": "損失",
    "fig.ft.step": "ステップ",
    "fig.ft.accuracy": "正解率",
    "fig.ft.train_accuracy": "学習データの正解率",
    "fig.ft.test_accuracy": "テスト正解率",
    "fig.ft.curve_title": "ファインチューニング：{method}",
    "fig.ft.curve_subtitle": "ステップ {step}/{steps} · 最後の損失 {loss}",
    "fig.ft.before": "学習前",
    "fig.ft.after": "学習後",
    "fig.ft.predicted": "予測",
    "fig.ft.direction": "方向 {n}",
    "fig.ft.map_title": "ヘッドが読むベクトルを 2 次元で（PCA）",
    "fig.ft.map_subtitle": "色：正解ラベル · 白抜き：予測が誤り",
    "fig.ft.wrong": "白抜き：予測が誤り",
    "fig.ft.map_head": "ヘッドのみ: ベクトルは動かず、ヘッドによる読み取り方だけが変わりました",
    "fig.alt.ft_curve": (
        "{n} ステップの学習曲線です。損失は {first} から {last} になり、最後のテスト正解率は {accuracy} でした。"
    ),
    "fig.alt.ft_map": (
        "{n} 個のテスト文のベクトルを、ファインチューニングの前と後で 2 次元に表しています。テスト正解率は前が "
        "{before}、後が {after} です。"
    ),
    "field.train": "学習用の表",
    "field.test": "テスト用の表",
    "field.label": "ラベル",
    "field.label word": "ラベル語",
    "field.template": "テンプレート",
    "field.shots": "プロンプト内の例の数",
    "field.steps": "オプティマイザのステップ数",
    "field.learning rate": "学習率",
    "field.batch size": "バッチサイズ",
    "field.layers": "学習する最後の層の数",
    "error.task_rows": "{what}は（文、ラベル）の行のリストでなければなりません。入力値：{got}。",
    "error.task_row": "{what}の {row} 行目には文とラベルが必要です。入力値：{got}。",
    "error.task_cell": "{what}の{row}行目：{problem}",
    "error.task_no_text": (
        "{what}の {row} 行目にはラベルがありますが、文がありません。文を入力するか、その行を空にしてください。"
    ),
    "error.task_no_label": (
        "{what}の {row} 行目にラベルがありません。ラベル（短い単語なら何でも構いません）を入力するか、"
        "その行を空にしてください。"
    ),
    "error.task_too_many": "{what}には {n} 行あります。上限は {limit} 行です。いくつか削除してください。",
    "error.task_empty": "{what}が空です。（文、ラベル）の行を追加するか、組み込みのタスクを読み込んでください。",
    "error.task_labels": (
        "タスクの学習用の表には、異なるラベルが 2 個以上 {limit} 個以下必要です。現在は {n} 個です。"
    ),
    "error.task_unknown_label": (
        "テスト用の表に、学習用の表のどの行にもないラベルが使われています：{labels}。学習用の表のラベル：{known}。"
    ),
    "error.label_words": (
        "ラベルごとにラベル語を 1 つずつ、カンマで区切って書いてください（{n} 個のラベル：{labels}）。入力値：{got}。"
    ),
    "error.label_words_repeat": "ラベルごとに別々の語が必要です。重複している語：{got}。",
    "error.label_word_tokens": (
        "BERT はマスクの位置にトークンを 1 つだけ埋めますが、このモデルでは「{word}」が複数のトークンになります："
        "{pieces}。1 トークンで済む単語（よく使う短い単語）を選んでください。"
    ),
    "error.template_slot": "テンプレートには、各文が入る場所に {slot} が必要です。",
    "error.task_mask": "BERT のプロンプトにはラベル語の位置にすでに {mask} があり、文にもあると 2 つになります。次の文から削除してください：{text}",
    "error.template_mask": "BERT のテンプレートには、ラベル語が入る場所に {mask} がちょうど 1 つ必要です。",
    "error.task_model": (
        "許可されたエンコーダかデコーダのモデル（または「encoder」/「decoder」）を選んでください。入力値：{got}。"
        "選べるもの：{choices}。"
    ),
    "error.tune_method": "学習させる部分を次のいずれかから選んでください：{choices}。入力値：{got}。",
    "error.tune_stopped_early": "最初のステップの前に実行が止まりました。もう一度「ファインチューニングする」を押してください。",
    "error.tune_nothing": "まずこのページでモデルをファインチューニングしてから、自分の文で試してください。",
    "error.tune_why_first": "まずこのページでモデルをファインチューニングしてから、テスト文にそのラベルを付けた理由を尋ねてください。",
    "ft.why_tuned_sentence": "どのテスト文（1 = 最初）：ファインチューニングしたモデルがそのラベルを予測した理由",
    "error.checkpoint_labels": (
        "感情分析タブのチェックポイントが知っているラベルは {known} です。このタスクの {labels} はその中にありません。"
        "英語の感情分析タスクを読み込んでください（または、チェックポイントと同じ名前でラベルを付けてください）。"
    ),
    "error.export_failed": "サーバーにファイルを書き込めませんでした（{reason}）。しばらくしてからもう一度エクスポートしてください。",
    # --- AI チューター (MCP) ------------------------------------------------------------------------------------------
    "error.head_needs_layer": "ヘッドは層の中で選びます。層も指定してください。",
    "error.tutor_task": "説明する対象を {choices} のいずれかから選んでください。入力値：{got}。",
    "error.tool_argument_missing": "{tool} には引数 `{argument}`（{expected}）が必要です。",
    "error.tool_argument_unknown": "{tool} に引数 `{argument}` はありません。受け取る引数：{arguments}。",
    "error.tool_argument_type": "{tool} の引数 `{argument}` は {expected} でなければなりません。入力値：{got}。",
    "error.call_given_up": "アシスタントがこの呼び出しを待つのをやめたため、呼び出しを終了しました。",
    "tutor.prompt": (
        "あなたは「BERT と GPT-2 を並べて」アプリのツールを使って、学生に BERT と GPT-2 を教えるチューターです。どの"
        "ツールも実際のモデルを動かし、その数値を JSON で返します。記憶ではなく、呼び出した結果を根拠に答えてください。\n\n"
        "教え方：\n"
        "1. 2つの事前学習タスクから始めます。fill_mask は BERT が空欄を両側の文脈から埋める様子（マスク言語モデル）を、"
        "next_sentence は BERT の2つ目のタスクを示します。generate と next_token は GPT-2 が左側の文脈だけから次のトークンを"
        "予測する様子（因果言語モデル）を示します。\n"
        "2. compare で両者を並べます。future_share は BERT（双方向アテンション）では 0 より大きく、GPT-2（因果マスク）では"
        "ちょうど 0 です。単語と2つ目の文を渡すと、same_word は2つの文がその単語まで同じとき GPT-2 のベクトルは同一のまま、"
        "BERT のベクトルは変わることを示します。\n"
        "3. デコーディング：temperature、top_k、top_p を変えて next_token を呼び、\"final\"（実際にサンプルされる確率）を"
        "読みます。次に戦略ごとに generate を呼びます。同じサンプルをもう一度見せるときは seed を渡してください。\n"
        "4. モデルの内部：attention_summary はヘッドごとの数値（entropy、to_previous、to_first、to_sep）を返します。"
        "to_previous が 1 に近いヘッドは直前トークンのヘッドです。[CLS]、[SEP]、GPT-2 の先頭トークンに集まるアテンションは、"
        "意味というより休み場所であることが多いです。ヘッド1つのマップ（layer と head）は必要なときだけ求めてください。"
        "logit_lens は GPT-2 の予測が層ごとにできていく様子を示します。\n"
        "5. ファインチューニング済みの BERT：classify、entities、answer。ファインチューニングの代わりにプロンプト："
        "prompt_task で同じラベル付きデータを使い、ゼロショット（shots 0）と少数ショットを、BERT は穴埋め、GPT-2 は続きの"
        "生成として比べます。\n\n"
        "韓国語と日本語のテキスト：既定のモデルは英語しか読めません（bert-base-uncased はハングルを字母に、GPT-2 は"
        "バイトに分解します）。そのようなテキストでの数値には意味がありません。model を指定してください。BERT のツール"
        "（fill_mask、next_sentence、attention_summary と compare の encoder、explain、prompt_task）には "
        "google-bert/bert-base-multilingual-cased を、GPT-2 のツール（generate、next_token、logit_lens、"
        "attention_summary と compare の decoder）には日本語なら rinna/japanese-gpt2-small、韓国語なら "
        "skt/kogpt2-base-v2 を渡します。classify、entities、answer のモデルは英語しか読めません。韓国語や日本語の"
        "テキストには使わず、その結果を成功として伝えないでください。\"warning\" が付いた結果は、テキストの言語を読めない"
        "モデルが出したものです。その use_model が代わりに渡すモデルを示します。\n\n"
        "数値の読み方：\"score\" はモデルの確率であって、正解である確信度ではありません。確率のごく小さな差に意味はありません。"
        "トークンはモデルが読む単位です（WordPiece の断片は ## で始まり、GPT-2 は先頭の空白を ␣ で示します）。\n\n"
        "主張しないこと：アテンションは説明ではありません。アテンションの重みはヘッドがどこを見たかを示すだけで、モデルがなぜ"
        "その予測をしたかは示しません。「なぜ」という質問には explain を呼んでください。アテンションと寄与度（integrated "
        "gradients）を並べて示します。spearman が低ければ両者は食い違っており、どのトークンが効いたかは寄与度の方が良い手がかり"
        "です。モデルが「理解している」「知っている」とは言わず、数値が示すことを述べてください。ツールがエラーを返したら、"
        "何を直すべきかが書かれています。入力を直してもう一度呼んでください。"
    ),
}
