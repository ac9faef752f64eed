"""The decoding engine's key-value cache layer: room to write each step's column in place.

Imported by the engine when it first runs a model (it imports transformers)."""

from __future__ import annotations

from transformers.cache_utils import DynamicLayer

ROOM = 32  # columns a layer keeps free after its keys and values


class RoomyLayer(DynamicLayer):
    """transformers' `DynamicLayer` whose keys and values are the first columns of buffers with `ROOM` columns to
    spare: a decoding step writes its one new column in place, where `DynamicLayer` copies the whole cache into a
    new tensor (`torch.cat`) at every step. A step of 20 rows at GPT-2 size took 63.3 ms with 200 tokens cached and
    46.9 ms so (47.1 / 40.8 ms at 100 tokens, 37.7 / 36.1 ms at 30), with the same logits (`bench/engine.py`). The
    buffer starts again (one copy) whenever the keys are not its own view: the prefill's, those the engine builds
    when rows join or leave the batch, or once the columns outgrow the room."""

    def update(self, key_states, value_states, *args, **kwargs):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        self.keys, self._key_room = _append(self.keys, key_states, getattr(self, "_key_room", None))
        self.values, self._value_room = _append(self.values, value_states, getattr(self, "_value_room", None))
        return self.keys, self.values


def with_room(cache):
    """The cache with each of its plain `DynamicLayer`s (not yet filled) replaced by a `RoomyLayer`."""
    cache.layers = [RoomyLayer() if type(layer) is DynamicLayer else layer for layer in cache.layers]
    return cache


def _append(current, new, room):
    """(`current` followed by `new`'s columns, the buffer that is a view of): written into `room` when `current` is
    its first columns and the new ones fit, else into a new buffer with `ROOM` columns to spare."""
    length = current.shape[-2] if current.dim() == 4 else 0  # a layer not yet filled holds a 1-d empty tensor
    end = length + new.shape[-2]
    fits = (room is not None and current.dim() == 4 and current.data_ptr() == room.data_ptr()
            and current.shape[:2] == room.shape[:2] and current.stride() == room.stride() and end <= room.shape[-2])
    if not fits:
        rows, heads, _, size = new.shape
        room = new.new_empty(rows, heads, end + ROOM, size)
        if length:
            room[:, :, :length] = current
    room[:, :, length:end] = new
    return room[:, :, :end], room
