// What a class looks at stays in view: a page's result (or its error) is scrolled into sight when the user's own
// button, Enter or example starts it; a guided step lands at the top of its tab; a tab's intro folds to one line
// after its first run there (and stays folded on later visits); every chart gets its text alternative.
// Gradio's own markup is read only through GRADIO, which ui/view.py fills in from bg_demo/ui/gradio_compat.py (MARKUP):
// everything else is the app's own classes (bg-*) and Plotly's chart (.js-plotly-plot).
(() => {
  const GRADIO = /*gradio_compat.MARKUP*/ null;
  const FOLDED_KEY = "bg_demo.folded";  // the intros already read, kept for the next visit
  const TOP_GAP = 8;  // px left above an element scrolled to the top
  const TRIGGER_MS = 15000;  // a run that starts this soon after the user's action is that action's (an example
  // first fills its inputs, a round trip, so a busy server may take a while)
  const SETTLE_MS = 3000;  // how long a finished result is kept in view while it is drawn
  const RESULT_TOP = 0.4;  // a result whose top is lower on the screen than this fraction is scrolled up
  const LEAD_ABOVE = 110;  // px kept in view above a result's first busy output
  let trigger = null;  // {panel, el, at}: where, from what and when the user last started a run
  let watching = null;  // the first output of that run, while it is computed
  let outputs = [];  // every output of that run seen busy (one may show only once it has a value: a summary line)

  // the innermost tab, or the page (a page with no tabs: `bg-page`, ui/__init__.py)
  const panelOf = (el) => el && el.closest && (el.closest(GRADIO.tab_panel) || el.closest(".bg-page"));
  const shown = (el) => el && el.isConnected && el.getClientRects().length > 0 && el.getBoundingClientRect().height > 0;
  const scrollToTop = (el) => {
    const top = el.getBoundingClientRect().top + window.scrollY - TOP_GAP;
    window.scrollTo({top: Math.max(0, top), behavior: "instant"});
  };
  // the whole element in view when it fits, else its top at the top of the screen
  const reveal = (el) => {
    const box = el.getBoundingClientRect();
    if (box.top >= 0 && box.bottom <= window.innerHeight) return;
    if (box.top > 0 && box.height <= window.innerHeight - 2 * TOP_GAP) {
      window.scrollBy({top: box.bottom - window.innerHeight + TOP_GAP, behavior: "instant"});
    } else {
      scrollToTop(el);
    }
  };
  // a finished output may still grow (a chart is drawn after its data arrives): keep it in view while it does
  // (until the reader does something: opening a panel under the result must not pull the page back to it)
  const settle = (el) => {
    lead(el);
    const sizes = new ResizeObserver(() => lead(el));
    sizes.observe(el);
    sizes.observe(document.body);  // and while what is above it settles (a box filled, a tracker gone)
    const done = () => sizes.disconnect();
    setTimeout(done, SETTLE_MS);
    for (const kind of ["pointerdown", "wheel", "touchstart", "keydown"]) window.addEventListener(kind, done, {capture: true, once: true});
  };
  // a result starts in the upper part of the screen, so what follows its first output is in view too
  // (a little above it too: a one-line summary over a table or figure shows no progress of its own)
  const lead = (el) => {
    const top = el.getBoundingClientRect().top;
    if (top >= 0 && top <= window.innerHeight * RESULT_TOP) return;
    const above = Math.min(LEAD_ABOVE, window.innerHeight * 0.15);
    window.scrollTo({top: Math.max(0, top + window.scrollY - above), behavior: "instant"});
  };
  // the result's top: the highest of its outputs on screen (one shown only once it has a value may sit above)
  const topmost = (blocks) => blocks.filter((b) => shown(b) && panelOf(b) === panelOf(blocks[blocks.length - 1]))
    .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0];
  const errorIn = (panel) => [...panel.querySelectorAll(".bg-error")].find((box) => panelOf(box) === panel && shown(box));

  const readKeys = () => { try { return JSON.parse(localStorage.getItem(FOLDED_KEY) || "[]"); } catch (e) { return []; } };
  const keyOf = (about) => [...about.classList].find((c) => c.startsWith("bg-about-")) || "";
  const setFolded = (about, on) => {
    about.classList.toggle("bg-folded", on);
    about.setAttribute("aria-expanded", String(!on));
  };
  const foldable = (about) => {  // once read, an intro folds and unfolds with a click, Enter or Space
    if (about.dataset.bgRead) return;
    about.dataset.bgRead = "1";
    about.tabIndex = 0;
    about.setAttribute("role", "button");
    setFolded(about, true);
  };
  const read = (panel) => {
    const about = panel.querySelector(".bg-about");
    if (!about || about.dataset.bgRead || panelOf(about) !== panel) return;
    foldable(about);
    const keys = readKeys(), key = keyOf(about);
    if (key && !keys.includes(key)) { keys.push(key); try { localStorage.setItem(FOLDED_KEY, JSON.stringify(keys)); } catch (e) {} }
  };
  const started = (el) => {
    const panel = panelOf(el);
    if (!panel) return;
    trigger = {panel, el, at: Date.now()};
    watching = null;
    outputs = [];
    read(panel);
  };

  document.addEventListener("click", (event) => {
    const el = event.target instanceof Element ? event.target : null;
    if (!el) return;
    if (el.closest(".bg-step, .bg-lesson-turn")) {  // a lesson's step opens a page and runs it: lead its result
      stepping();
      return;
    }
    // an examples table is redrawn when clicked: its column stands for it
    // a button that computes a result under it (the app's bg-run: every page's run button, `page.run_button`,
    // "Explain this prediction", "Show where the answer looks")
    const run = el.closest(".bg-run");
    if (run) started(run);
    else if (el.closest(".bg-examples")) started(el.closest(".bg-examples"));
    const about = el.closest(".bg-about");
    if (about && about.dataset.bgRead) setFolded(about, !about.classList.contains("bg-folded"));
  }, true);
  document.addEventListener("keydown", (event) => {
    const el = event.target instanceof Element ? event.target : null;
    if (!el) return;
    if (event.key === "Enter" && !event.shiftKey && el.matches("textarea, input[type=text], input:not([type])")) started(el);
    if ((event.key === "Enter" || event.key === " ") && el.classList.contains("bg-about") && el.dataset.bgRead) {
      event.preventDefault();
      setFolded(el, !el.classList.contains("bg-folded"));
    }
  }, true);

  // a control a student can change (a box, a choice, an editable table): an input of the run, never its result
  const control = (el) => [...el.querySelectorAll(
    "input:not([disabled]):not([type=hidden]), textarea:not([disabled]):not([readonly]), select:not([disabled])")]
    .some((field) => field.getClientRects().length > 0);  // one on screen (a table's file input is not)
  // a result comes after what started it (an example first fills the inputs above it: they are not the result)
  const recent = (el) => {
    if (!trigger) return false;
    // a link that runs its page: the first output in a tab (not a field the page fills in on the way, as the
    // Fine-tune tab's task in the page's language: Gradio's client shows an event's inputs busy while it runs)
    if (!trigger.panel) return !!panelOf(el) && !control(el);
    return Date.now() - trigger.at < TRIGGER_MS && trigger.panel === panelOf(el) && !trigger.el.contains(el)
      && !!(trigger.el.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
  };
  // a link that runs its page (run=1), a lesson's link and a lesson's step (the guided path's too) show the result
  // they were sent for, its tab's intro folded, unless the user has moved on by then
  function stepping() {
    trigger = {panel: null, el: null, at: Date.now()};
    watching = null;
    outputs = [];
    const moved = () => { if (trigger && !trigger.panel) trigger = null; };
    for (const kind of ["wheel", "touchmove", "keydown", "mousedown"]) window.addEventListener(kind, moved, {capture: true, once: true});
  }
  // The language switch keeps the reader's place: the block the reader was reading at the top of the screen (down
  // the page, before coming up to the switch, if they did so in the last PLACE_MS) is brought back there and kept
  // there while the page is worded again and its figures redrawn (a block keeps its element while its value changes),
  // until the reader scrolls or acts, or KEEP_MS have passed.
  const KEEP_MS = 8000, PLACE_MS = 120000;
  const SWITCH = "#bg-language";  // ui/language.py's ELEM_ID
  let place = null;  // {el, offset, at}: the block at the top of the screen when the reader last stopped scrolling
  let placing = null;
  const topBlock = () => {  // the first block that starts on screen (else the one covering its top), not an
    // examples table, which is one per language (the switch hides it for another)
    const on = [...document.querySelectorAll(GRADIO.block)].filter((b) => !b.closest(".bg-lesson, .bg-examples")
      && !b.querySelector(GRADIO.block) && shown(b) && b.getBoundingClientRect().bottom > TOP_GAP);
    return on.find((b) => b.getBoundingClientRect().top >= 0) || on[0];
  };
  const switchShown = () => { const s = document.querySelector(SWITCH); return !!s && s.getBoundingClientRect().bottom > 0; };
  window.addEventListener("scroll", () => {  // read once the scrolling stops, not at every frame of it
    clearTimeout(placing);
    placing = setTimeout(() => {
      if (switchShown()) return;
      const b = topBlock();
      if (b) place = {el: b, offset: b.getBoundingClientRect().top, at: Date.now()};
    }, 200);
  }, {passive: true});
  window.bgDemoKeepPlace = () => {
    let target = null;
    if (switchShown() && place && Date.now() - place.at < PLACE_MS) target = place;
    else if (window.scrollY > 0) {
      const b = topBlock();
      if (b) target = {el: b, offset: b.getBoundingClientRect().top};
    }
    if (!target) return;
    const hold = () => {
      if (!shown(target.el)) return;
      const by = target.el.getBoundingClientRect().top - target.offset;
      if (Math.abs(by) > 1) window.scrollBy({top: by, behavior: "instant"});
    };
    hold();
    const sizes = new ResizeObserver(hold);
    sizes.observe(document.body);
    const timer = setInterval(hold, 100);  // a scroll to the top leaves every size as it was: looked for too
    const done = () => { sizes.disconnect(); clearInterval(timer); };
    setTimeout(done, KEEP_MS);
    for (const kind of ["wheel", "touchstart", "keydown", "pointerdown"]) window.addEventListener(kind, done, {capture: true, once: true});
  };
  const asked = new URLSearchParams(location.search);
  if (/^(1|true|yes|on)$/i.test(asked.get("run") || "") || asked.has("lesson")) stepping();
  // A chart its page's controls redraw (bg-redrawn, its controls in bg-redraws: the Attention tab's map) shows it
  // is being drawn from the moment a control moves or the page runs: Gradio's own progress shows only once the
  // request is on its way and ends when the figure arrives, before Plotly draws it (seconds for 512 tokens on a
  // slow phone). The cue ends when Plotly has drawn, the page says what went wrong, or nothing came to draw.
  // The cue is set on the press itself (pointerdown), before the click's own work, which Gradio does at once and
  // which on a slow phone keeps the page from painting for a second; a slider's keys and a typed number set it too.
  const DRAWING = "bg-drawing";
  const NOTHING_DRAWN_MS = 800;  // after the figure's request ends, with no drawing begun: nothing will come
  const NOTHING_ASKED_MS = 3000;  // after a press that asked for nothing (the view already chosen)
  const drawing = (panel, on) => {
    if (!panel) return;
    for (const chart of panel.querySelectorAll(".bg-redrawn")) {
      if (panelOf(chart) !== panel) continue;
      chart.classList.toggle(DRAWING, on);
      if (on) chart.setAttribute("aria-busy", "true"); else chart.removeAttribute("aria-busy");
      clearTimeout(chart.bgNothing);
      if (on) chart.bgNothing = setTimeout(() => drawing(panel, false), NOTHING_ASKED_MS);
    }
  };
  const redrawn = (event) => {
    const el = event.target instanceof Element ? event.target : null;
    if (!el) return;
    const controls = el.closest(".bg-redraws");
    if (controls && el.closest("label, input, li")) drawing(panelOf(controls), true);  // a choice, a box, an option
    else if (event.type === "pointerdown" && el.closest(".bg-run")) drawing(panelOf(el), true);
  };
  for (const kind of ["pointerdown", "input", "change"]) document.addEventListener(kind, redrawn, true);
  const drawnBy = (plot) => {  // Plotly's own event, once per chart element
    if (plot.bgWatched || typeof plot.on !== "function") return;
    plot.bgWatched = true;
    plot.on("plotly_afterplot", () => { const chart = plot.closest(".bg-redrawn"); if (chart) drawing(panelOf(chart), false); });
  };
  const alt = (plot) => {
    const text = plot.layout && plot.layout.meta && plot.layout.meta.alt;
    if (text && plot.getAttribute("aria-label") !== text) {
      plot.setAttribute("role", "img");
      plot.setAttribute("aria-label", text);
    }
  };
  let sweep = false;  // one pass over new intros and charts per frame, however many nodes changed
  const later = () => {
    if (sweep) return;
    sweep = true;
    requestAnimationFrame(() => {
      sweep = false;
      const keys = readKeys();
      document.querySelectorAll(".bg-about:not([data-bg-read])").forEach((about) => { if (keys.includes(keyOf(about))) foldable(about); });
      document.querySelectorAll(".js-plotly-plot").forEach(alt);
      document.querySelectorAll(".bg-redrawn .js-plotly-plot").forEach(drawnBy);
    });
  };
  new MutationObserver((mutations) => {
    for (const m of mutations) {
      const el = m.target;
      if (m.type === "childList") {
        later();
        for (const node of m.addedNodes) {  // an error box is added to the page when it has something to say
          const box = node instanceof Element && (node.matches(".bg-error") ? node : node.querySelector && node.querySelector(".bg-error"));
          if (box && shown(box) && (recent(box) || (watching && panelOf(watching) === panelOf(box)))) reveal(box);
          if (box) drawing(panelOf(box), false);  // an error: nothing more will be drawn
        }
        continue;
      }
      // an output's status tracker (div.wrap.full or .minimal) shows while its output is computed or streamed
      if (!(el instanceof Element) || !el.classList.contains(GRADIO.tracker) ||
          !GRADIO.tracker_shown.some((shown) => el.classList.contains(shown))) continue;
      const block = el.closest(GRADIO.block);
      if (!block) continue;
      const busy = !el.classList.contains(GRADIO.tracker_idle);
      if (block.classList.contains(DRAWING)) {  // asked: wait for it; done: its drawing begins now, if any comes
        clearTimeout(block.bgNothing);
        if (!busy) block.bgNothing = setTimeout(() => drawing(panelOf(block), false), NOTHING_DRAWN_MS);
      }
      if (busy && (watching ? panelOf(block) === panelOf(watching) : recent(block)) && !outputs.includes(block)) outputs.push(block);
      if (busy && !watching && recent(block) && shown(block)) {
        if (!trigger.panel) read(panelOf(block));  // a step: the page's intro folds, so its result comes up
        watching = block;  // the first output to start is the top of the result
        trigger = null;
        lead(block);
      } else if (!busy && !watching && recent(block) && shown(block)) {
        if (!trigger.panel) read(panelOf(block));
        trigger = null;  // a run too quick (or a page too busy) to be seen starting: its result when it is done
        settle(topmost([...outputs, block]));
        outputs = [];
      } else if (!busy && block === watching) {
        watching = null;
        const panel = panelOf(block), box = panel && errorIn(panel);
        const top = topmost([...outputs, block]);
        outputs = [];
        if (box) reveal(box); else if (top) settle(top);
      }
    }
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
})();
