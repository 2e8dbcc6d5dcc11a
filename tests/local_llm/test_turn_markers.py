"""A streamed answer ends at the first chat-template turn marker (local_llm.turn_markers)."""

from __future__ import annotations

import pytest

from local_llm import CallTrace, LLMClient, ModelConfig
from local_llm.testing import ScriptedBackend
from local_llm.turn_markers import TURN_MARKERS, TurnMarkerCutter

PROMPT = [{"role": "user", "content": "explain"}]


class PiecesBackend(ScriptedBackend):
    """Streams exactly the given pieces, counting how many were read and whether it was closed."""

    def __init__(self, pieces: list[str]):
        super().__init__()
        self.pieces = pieces
        self.produced = 0
        self.closed = False

    async def stream(self, messages, *, config):
        try:
            for piece in self.pieces:
                self.produced += 1
                yield piece
        finally:
            self.closed = True


async def _stream(pieces: list[str]) -> tuple[list[str], PiecesBackend, list[CallTrace]]:
    traces: list[CallTrace] = []
    backend = PiecesBackend(pieces)
    client = LLMClient(
        {"default": ModelConfig(model="m")}, backend=backend, trace_sink=traces.append
    )
    return [p async for p in client.stream(PROMPT)], backend, traces


def _cut(pieces: list[str]) -> tuple[list[str], TurnMarkerCutter]:
    cutter = TurnMarkerCutter()
    released = [cutter.feed(p) for p in pieces] + [cutter.finish()]
    return released, cutter


async def test_a_marker_inside_one_piece_ends_the_answer():
    pieces, _, _ = await _stream(["Photosynthesis makes sugar.<|im_end|>\n<|im_start|>user\n"])
    assert pieces == ["Photosynthesis makes sugar."]


async def test_a_marker_split_over_two_pieces_is_recognised():
    pieces, _, _ = await _stream(["Done.<|im_", "start|>user\nmore"])
    assert "".join(pieces) == "Done."


async def test_a_marker_split_over_three_pieces_is_recognised():
    pieces, _, _ = await _stream(["Yes", " <start_", "of_tu", "rn>model\nagain"])
    assert "".join(pieces) == "Yes "


async def test_text_with_angle_brackets_that_are_not_markers_passes_unchanged():
    text = "1 < 2 and a<b, see <s>x</s>"
    chunked = [text[i : i + 3] for i in range(0, len(text), 3)]
    pieces, _, traces = await _stream(chunked)
    assert "".join(pieces) == "1 < 2 and a<b, see <s>x"
    assert traces[0].detail == "cut at turn marker '</s>'"
    pieces, _, traces = await _stream(["1 < 2 and a<b", " <|im", " not a marker"])
    assert "".join(pieces) == "1 < 2 and a<b <|im not a marker"
    assert traces[0].detail == ""


async def test_a_held_marker_prefix_is_released_when_the_stream_ends():
    pieces, _, traces = await _stream(["The answer is x <|im_"])
    assert pieces == ["The answer is x ", "<|im_"]
    assert traces[0].outcome == "ok" and traces[0].detail == ""


async def test_the_backend_is_not_read_past_the_marker():
    pieces, backend, _ = await _stream(["Hi", " there<|eot_id|>", "more", "and more", "..."])
    assert pieces == ["Hi", " there"]
    assert backend.produced == 2 and backend.closed


async def test_the_trace_records_the_cut():
    _, _, traces = await _stream(["Short answer.", "<|im_start|>", "user\n"])
    (trace,) = traces
    assert trace.outcome == "ok"
    assert trace.detail == "cut at turn marker '<|im_start|>'"


def test_pieces_without_a_left_angle_bracket_are_released_at_once():
    released, cutter = _cut(["plain text", " more plain text"])
    assert released == ["plain text", " more plain text", ""]
    assert cutter.marker is None and cutter.note == ""


def test_only_the_tail_that_could_become_a_marker_is_held():
    cutter = TurnMarkerCutter()
    assert cutter.feed("a < b <|end") == "a < b "
    assert cutter.feed("oftext") == ""
    assert cutter.feed("!") == "<|endoftext!"
    assert cutter.finish() == ""


def test_the_earliest_marker_wins_and_nothing_follows_it():
    released, cutter = _cut(["x</s>y<|im_start|>", "z"])
    assert released == ["x", "", ""]
    assert cutter.marker == "</s>"


@pytest.mark.parametrize("marker", TURN_MARKERS)
def test_every_marker_cuts_even_when_streamed_a_character_at_a_time(marker):
    released, cutter = _cut(list("answer" + marker + "user\nhi"))
    assert "".join(released) == "answer" and cutter.marker == marker


def test_markers_must_start_with_a_left_angle_bracket():
    with pytest.raises(ValueError):
        TurnMarkerCutter(["END"])
