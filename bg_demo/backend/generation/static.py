"""The decoding engine's batch on a static key-value cache: one step is a fixed sequence of tensor operations on
buffers that never move, so on CUDA it is captured once as a CUDA graph and replayed, one launch a step.

Imported by the engine when it first runs a model (it imports torch and transformers).

The buffers hold `capacity` rows and `length` columns per layer (keys and values of shape (rows, heads, length, head
size)), grown by doubling when a batch outgrows them. Rows are right-aligned: every running row's newest key is in
column `column - 1` and a step writes column `column` of every row at once, so a row joins by copying its prompt's
keys into the columns just before `column` of a free row (the batch's older rows move only when the new prompt is
longer than the columns before `column`), and rows leave by moving the rows that stay to the front. A row's positions
count its own tokens, as `generate` counts them; the mask (rows, length) marks the columns each row reads.

A step reads rows 0 to `rows - 1` and the columns of a window. On a CPU the window is exactly the columns some row
reads, and the step runs eagerly. On CUDA the step of a given number of rows and window is captured once per bucket
(rows 1, 2, 4, ... the capacity; window 64, 128, ... the length) and replayed: a bucket's spare rows are padding
rows, whose mask reads one column, whose positions are 0, whose tokens nobody reads. Graphs are captured on the
buffers they read; when the buffers grow, they are captured again. The step's greedy choice, its probability and the
logits' log-sum-exp are computed inside the step (inside the graph on CUDA).

Why not transformers' `StaticCache`: every row there writes the column of its own `cache_position`, one position
for the whole batch, so left-padded rows joining a running batch would need the same length; its layers hold
exactly `max_batch_size` rows, where a graph per row bucket reads the first rows of one buffer. The layer here is a
transformers cache layer (`DynamicLayer`'s interface) whose `update` writes one column in place.
"""

from __future__ import annotations

import logging

import torch
from transformers.cache_utils import Cache, DynamicLayer

log = logging.getLogger(__name__)

FIRST_LENGTH = 64  # columns of the first buffers for graphs (and the smallest window bucket)
ROOM = 32  # columns kept free after the newest, uncaptured


def bucket(n: int, least: int = 1) -> int:
    """The smallest power of two >= n and >= least."""
    size = least
    while size < n:
        size *= 2
    return size


class ColumnLayer(DynamicLayer):
    """One layer's window of the static buffers: `update` writes the step's keys and values into column `column` of
    the window (a one-element tensor on the device, so a captured graph reads whichever column is current) and
    returns the whole window."""

    def __init__(self) -> None:
        super().__init__()
        self.is_initialized = True
        self.column = None

    def update(self, key_states, value_states, *args, **kwargs):
        self.keys.index_copy_(2, self.column, key_states)
        self.values.index_copy_(2, self.column, value_states)
        return self.keys, self.values


class StaticBatch:
    """The running rows of one decoder model on static buffers, and its step. All tensors live on the model's device;
    the host keeps `rows`, `column` and `start` (the first column some row reads)."""

    def __init__(self, model, device, capacity: int, graphs: bool) -> None:
        self.model, self.device = model, torch.device(device)
        self.graphs = graphs and self.device.type == "cuda"
        # steps at a bucket's rows and window, as a graph runs them: on CUDA with graphs; on a CPU only for the tests,
        # which check a graph's shapes (padding rows, the window from column 0) step for step against `generate`
        self.buckets = self.graphs
        # with graphs, the rows of the whole batch from the start (a graph reads the buffers it was captured on);
        # else as many as run (a lone student's long text holds one row's columns, not 32)
        self.capacity = bucket(capacity) if self.graphs else 0
        self.rows = self.column = self.start = 0
        self.length = 0
        self.keys: list = []  # per layer, (capacity, heads, length, head size)
        self.values: list = []
        self.mask = None  # (capacity, length) bool: the columns each row reads
        self.last = None  # (capacity,) long: each row's newest token, the next step's input
        self.positions = None  # (capacity,) long: the position of each row's next token
        self.index = torch.zeros(1, dtype=torch.long, device=self.device)  # the column the step writes, in its window
        self.layers: list[ColumnLayer] = []
        self.cache = None
        self._graphs: dict[tuple[int, int], tuple] = {}
        self._pool = None
        self.captures = 0  # graphs captured so far (the GPU check reports it)
        self.capture_seconds = 0.0
        self._scale = None  # the mask's "no" value for the model's dtype

    # -- the buffers -----------------------------------------------------------------------------------------------

    def _allocate(self, keys, capacity: int, length: int) -> None:
        """Buffers of `capacity` rows and `length` columns shaped like the prefill's `keys` (per layer), holding what
        the old ones held (same rows, same columns)."""
        old = (self.keys, self.values, self.mask, self.last, self.positions)
        heads, size = keys[0].shape[1], keys[0].shape[3]
        dtype = keys[0].dtype
        self.keys = [torch.zeros(capacity, heads, length, size, dtype=dtype, device=self.device) for _ in keys]
        self.values = [torch.zeros(capacity, heads, length, size, dtype=dtype, device=self.device) for _ in keys]
        self.mask = torch.zeros(capacity, length, dtype=torch.bool, device=self.device)
        self.last = torch.zeros(capacity, dtype=torch.long, device=self.device)
        self.positions = torch.zeros(capacity, dtype=torch.long, device=self.device)
        if old[2] is not None and self.rows:
            n, columns = self.rows, slice(self.start, self.column)
            for mine, theirs in zip(self.keys + self.values, old[0] + old[1]):
                mine[:n, :, columns] = theirs[:n, :, columns]
            self.mask[:n, columns] = old[2][:n, columns]
            self.last[:n], self.positions[:n] = old[3][:n], old[4][:n]
        self.capacity, self.length = capacity, length
        self.layers = [ColumnLayer() for _ in keys]
        for layer in self.layers:
            layer.column = self.index
        self.cache = Cache(layers=self.layers)
        self._scale = torch.finfo(self.model.dtype).min
        self._graphs.clear()  # captured on the old buffers

    def _move(self, to: int) -> None:
        """Move the running rows' columns so that their newest is column `to - 1` (to >= their width)."""
        width = self.column - self.start
        if to == self.column:
            return
        n, source, target = self.rows, slice(self.start, self.column), slice(to - width, to)
        for buffer in self.keys + self.values:
            buffer[:n, :, target] = buffer[:n, :, source].clone()
        held = self.mask[:n, source].clone()
        self.mask[:n] = False
        self.mask[:n, target] = held
        self.start, self.column = to - width, to

    def _room(self, keys, rows: int, column: int) -> None:
        """Buffers with `rows` rows and a column `column` to write. For graphs, grown by doubling (a graph per
        power of two); uncaptured, to the rows that run and `ROOM` columns to spare, as transformers' cache grows
        but a copy every `ROOM` steps instead of every step (zeroing a class's 32 rows of 64 columns at GPT-2 size,
        150 MB, cost a CPU 0.2 s at every admission of a class)."""
        if self.buckets:
            capacity = max(self.capacity, bucket(rows))
            length = max(self.length, FIRST_LENGTH)
            while length <= column:
                length *= 2
        else:
            capacity = max(self.capacity, rows)
            length = self.length if column < self.length else column + 1 + ROOM
        if capacity != self.capacity or length != self.length or self.mask is None:
            self._allocate(keys, capacity, length)

    # -- rows joining and leaving ----------------------------------------------------------------------------------

    def join(self, cache, mask, first) -> None:
        """Add newly prefilled rows: their cache (a transformers cache, (n, heads, T, size) per layer), (n, T) mask
        and first tokens, after the running rows."""
        keys = [layer.keys for layer in cache.layers]
        values = [layer.values for layer in cache.layers]
        new, width = mask.shape
        if not self.rows:
            self.start = self.column = 0
        # the new rows' columns end where the running rows' do: those move only when the prompt is the longer, or
        # when the buffers have no column left for the step (then to the front, and the buffers grow if need be)
        target = max(self.column, width)
        if target >= self.length:
            target = max(self.column - self.start, width)
        self._room(keys, self.rows + new, target)
        self._move(target)
        rows, columns = slice(self.rows, self.rows + new), slice(target - width, target)
        for buffer, theirs in zip(self.keys + self.values, keys + values):
            buffer[rows, :, columns] = theirs
        self.mask[rows] = False
        self.mask[rows, columns] = mask.bool()
        self.last[rows] = first
        self.positions[rows] = mask.sum(-1)
        self.rows += new
        self.start = min(self.start, target - width) if self.rows > new else target - width

    def leave(self, keep: list[int]) -> None:
        """Keep only the rows `keep` (in order) at the front; the rest become padding rows."""
        n = self.rows
        if not keep:
            self.mask[:n] = False
            self.last[:n] = 0
            self.positions[:n] = 0
            self.rows = self.start = self.column = 0
            return
        m, columns = len(keep), slice(self.start, self.column)
        if keep != list(range(m)):
            index = torch.tensor(keep, device=self.device)
            for buffer in self.keys + self.values:
                buffer[:m, :, columns] = buffer[index, :, columns]
            self.mask[:m] = self.mask[index]
            self.last[:m], self.positions[:m] = self.last[index], self.positions[index]
        self.mask[m:n] = False
        self.last[m:n] = 0
        self.positions[m:n] = 0
        self.rows = m
        self.start += int(self.mask[:m, columns].any(0).nonzero()[0, 0])  # the first column some row still reads

    # -- the step --------------------------------------------------------------------------------------------------

    def _body(self, rows: int, begin: int, end: int):
        """The step over rows 0..rows-1 and columns begin..end-1 (writing column `self.index` of the window): the
        logits of the next token (float32), the greedy choice, its probability and the log-sum-exp of the logits."""
        for layer, keys, values in zip(self.layers, self.keys, self.values):
            layer.keys, layer.values = keys[:rows, :, begin:end], values[:rows, :, begin:end]
        mask = self.mask[:rows, begin:end]
        mask.index_fill_(1, self.index, True)
        additive = torch.zeros(mask.shape, dtype=self.model.dtype, device=self.device).masked_fill_(~mask, self._scale)
        logits = self.model(
            input_ids=self.last[:rows, None], attention_mask=additive[:, None, None, :],
            position_ids=self.positions[:rows, None], past_key_values=self.cache, use_cache=True,
        ).logits[:, -1].float()
        lse = logits.logsumexp(-1)
        top, best = logits.max(-1)
        return logits, best, (top - lse).exp(), lse

    def step(self):
        """One step of the running rows: (logits (rows, V), best (rows,), its probability (rows,), log-sum-exp
        (rows,)); the caller sets `last` and advances with `advance`. May grow the buffers (a column to write)."""
        if self.column >= self.length:
            if self.start:
                self._move(self.column - self.start)
            else:
                self._room(self.keys, self.rows, self.column)
        if self.graphs:
            try:
                return self._replay()
            except Exception:  # noqa: BLE001 - a capture that fails leaves the uncaptured step, which always works
                log.warning("capturing the decoding step as a CUDA graph failed; steps run uncaptured", exc_info=True)
                self.graphs = self.buckets = False
                self._graphs.clear()
        if self.buckets:
            rows, window = self._bucket()
            self.index.fill_(self.column)
            with torch.inference_mode():
                logits, best, probability, lse = self._body(rows, 0, window)
            n = self.rows
            return logits[:n], best[:n], probability[:n], lse[:n]
        self.index.fill_(self.column - self.start)
        with torch.inference_mode():
            return self._body(self.rows, self.start, self.column + 1)

    def advance(self, chosen) -> None:
        """The step's chosen tokens (rows,) become the rows' newest; the next step writes the next column."""
        self.last[: self.rows] = chosen
        self.positions[: self.rows] += 1
        self.column += 1

    def _bucket(self) -> tuple[int, int]:
        """The rows and the window (from column 0) of the step's graph."""
        return min(bucket(self.rows), self.capacity), min(bucket(self.column + 1, FIRST_LENGTH), self.length)

    def _replay(self):
        rows, window = self._bucket()
        self.index.fill_(self.column)
        graph = self._graphs.get((rows, window))
        if graph is None:
            graph = self._graphs[rows, window] = self._capture(rows, window)
        graph[0].replay()
        logits, best, probability, lse = graph[1]
        n = self.rows
        return logits[:n], best[:n], probability[:n], lse[:n]

    def _capture(self, rows: int, window: int):
        import time

        started = time.perf_counter()
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        stream = torch.cuda.Stream(self.device)
        stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.inference_mode(), torch.cuda.stream(stream):
            for _ in range(2):  # warm-ups (kernels chosen, workspaces allocated): the same writes the replay makes
                self._body(rows, 0, window)
        torch.cuda.current_stream(self.device).wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        # "thread_local": the capture holds the device's turn, so no other model call runs, but a model loading onto
        # the GPU in another thread (under the loading lock, not the turn) must neither fail nor break the capture
        with torch.inference_mode(), torch.cuda.graph(graph, pool=self._pool, capture_error_mode="thread_local"):
            outputs = self._body(rows, 0, window)
        self.captures += 1
        self.capture_seconds += time.perf_counter() - started
        log.info("captured the decoding step for %d rows and %d columns in %.2f s", rows, window,
                 time.perf_counter() - started)
        return graph, outputs
