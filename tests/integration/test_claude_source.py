"""The Claude Code source over real transcripts, read in place from ../shared/fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memgit.core.model import USER_KINDS
from memgit.sources.claude_code.reader import discover, read_transcript
from memgit.sources.claude_code.records import CONTINUATION
from tests.conftest import CLAUDE_FIXTURES, needs_shared

pytestmark = needs_shared

LOG = CLAUDE_FIXTURES / "claude-code-log"
ENTIRE = CLAUDE_FIXTURES / "entire-cli"
CODERABBIT = LOG / "-Users-dain-workspace-coderabbit-review-helper"
WORKTREES = LOG / "-experiments-worktrees"
EF958 = WORKTREES / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
CB2E = CODERABBIT / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
CODEMIE = CLAUDE_FIXTURES / "codemie-code" / "incremental-subagents" / "turn-2.jsonl"
THREE = CLAUDE_FIXTURES / "agentcmd" / "full-session-three.jsonl"
GLUED = ENTIRE / "37_995ebed6e4_2.full.jsonl"
BIG = ENTIRE / "cd_95adddad32_0.full.jsonl"

# What our own rendering of content blocks would leave behind if a list were stringified.
DEBRIS = ('"tool_use_id"', "'tool_use_id'", '{"type": "text"', '{"type":"text"', "{'type': 'text'",
          '"type": "image"', "'type': 'image'", "<system-reminder>", "<command-name>",
          "<local-command-stdout>", "<local-command-caveat>", "<memgit-context")


def _main_files() -> list[Path]:
    if not CLAUDE_FIXTURES.is_dir():
        return []
    return sorted(p for p in CLAUDE_FIXTURES.rglob("*.jsonl")
                  if not p.name.startswith("agent-") and "subagents" not in p.parts)


def _lines(path: Path) -> list[tuple[int, bytes]]:
    """(offset, line) for every line of the file, read independently of the code under test."""
    out, offset = [], 0
    with open(path, "rb") as f:
        for line in f:
            out.append((offset, line))
            offset += len(line)
    return out


def _objects(line: bytes) -> list[dict]:
    text, decoder, pos, found = line.decode().strip(), json.JSONDecoder(), 0, []
    while pos < len(text):
        value, pos = decoder.raw_decode(text, pos)
        found.append(value)
    return found


def _raw(path: Path) -> list[dict]:
    return [obj for _, line in _lines(path) for obj in _objects(line)]


def _image_data(value) -> list[str]:
    """Every base64 payload of an image block anywhere inside a record."""
    if isinstance(value, dict):
        source = value.get("source")
        if value.get("type") == "image" and isinstance(source, dict) and isinstance(source.get("data"), str):
            return [source["data"]]
        return [d for v in value.values() for d in _image_data(v)]
    if isinstance(value, list):
        return [d for v in value for d in _image_data(v)]
    return []


def _all_text(transcript) -> list[str]:
    texts = []
    for turn in transcript.turns:
        texts.append(turn.text)
        for call in turn.tool_calls:
            texts.append(call.output)
            texts.append(json.dumps(call.input, ensure_ascii=False))
    return texts


def _prompts(transcript, *, sidechain: bool = False) -> list[str]:
    return [t.text for t in transcript.turns if t.role == "user" and t.kind == "prompt" and t.sidechain == sidechain]


# -- every fixture ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", _main_files(), ids=lambda p: str(p.relative_to(CLAUDE_FIXTURES)))
def test_every_fixture_reads_whole_and_clean(path):
    size = path.stat().st_size
    t = read_transcript(path)

    assert (t.start, t.end, t.bad_lines) == (0, size, 0)
    assert t.records == len(_raw(path))
    again = read_transcript(path, start=t.end)
    assert (again.start, again.end, again.turns, again.records) == (size, size, [], 0)

    for turn in t.turns:
        assert turn.role in ("user", "assistant")
        assert turn.kind in (USER_KINDS if turn.role == "user" else ("message",))
        assert turn.timestamp is None or turn.timestamp.endswith("Z")
        assert not any(d in turn.text for d in DEBRIS), turn.text[:300]
        for call in turn.tool_calls:
            assert not call.output.startswith(("[{", "{'")), call.output[:200]
            assert len(call.output) < 3_100
    payloads = [d[:64] for record in _raw(path) for d in _image_data(record)]
    assert not any(p in text for p in payloads for text in _all_text(t))
    if t.started:
        assert t.started.endswith("Z") and t.started <= t.ended


# -- specific fixtures ------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "count"), [("a6_e4c2a0fbd1_0", 1), ("76_62d755ef9f_2", 1), ("cd_95adddad32_0", 3)])
def test_compactions_are_kept_whole_as_compact_summaries(name, count):
    path = ENTIRE / f"{name}.full.jsonl"
    summaries = [t.text for t in read_transcript(path).turns if t.kind == "compact_summary"]
    raw = [r["message"]["content"] for r in _raw(path) if r.get("isCompactSummary")]
    assert len(summaries) == count
    assert summaries == raw  # full text, never trimmed
    assert all(s.startswith(CONTINUATION) and len(s) > 5_000 for s in summaries)


def test_two_objects_on_one_line_lose_nothing(tmp_path):
    lines = _lines(GLUED)
    t = read_transcript(GLUED)
    assert t.bad_lines == 0
    assert t.records == len(lines) + 1  # line 128 holds an assistant record and a summary

    # Up to the glued line, the summary glued after the assistant record is the newest own title.
    head = tmp_path / GLUED.name
    head.write_bytes(b"".join(line for _, line in lines[:128]))
    t = read_transcript(head)
    assert t.bad_lines == 0
    assert t.title == "Add agent name to logging context automatically"
    assistant_text = _objects(lines[127][1])[0]["message"]["content"][0]["text"]
    assert any(turn.text == assistant_text for turn in t.turns)


@pytest.mark.parametrize("path", [
    LOG / "-Users-dain-workspace-JSSoundRecorder" / "2c5941bd-b9de-41d6-9414-221d175776f7.jsonl",
    LOG / "-Users-dain-workspace-claude-code-log-sample" / "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl",
    LOG / "-experiments-ideas" / "a95fea4a-b88a-4e49-ac07-4cc323d8700c.jsonl",
], ids=["empty", "summary-only", "snapshot-only"])
def test_degenerate_files_have_no_turns(path):
    t = read_transcript(path)
    assert (t.turns, t.title, t.subagents, t.end) == ([], None, 0, path.stat().st_size)


def test_images_become_placeholders():
    pasted = read_transcript(LOG / "-Users-dain-workspace-danieldemmel-me-next" / "9e953218-585f-4692-89df-9e0747a31c68.jsonl")
    assert any(p.startswith("[image]\nDo you think we could set up rewrites") for p in _prompts(pasted))
    for name in ("agentcmd/full-session-two.jsonl", "entire-cli/ad_a8171575ce_0.full.jsonl"):
        outputs = [c.output for turn in read_transcript(CLAUDE_FIXTURES / name).turns for c in turn.tool_calls]
        assert any("[image]" in o for o in outputs), name


@pytest.mark.parametrize("name", ["ad_ac80fffbb8_0", "1e_868c83dbb7_0"])
def test_api_errors_are_not_assistant_words(name):
    path = ENTIRE / f"{name}.full.jsonl"
    t = read_transcript(path)
    assert not any(turn.text.startswith("API Error") for turn in t.turns if turn.role == "assistant")
    real = {r["message"]["id"] for r in _raw(path) if r.get("type") == "assistant"
            and not r.get("isApiErrorMessage") and r["message"].get("model") != "<synthetic>"}
    assert len([x for x in t.turns if x.role == "assistant"]) <= len(real)


def test_unanswered_tool_calls_stay_unanswered():
    raw = _raw(THREE)
    used = [b["id"] for r in raw if r.get("type") == "assistant" for b in r["message"]["content"] if b["type"] == "tool_use"]
    answered = {b["tool_use_id"] for r in raw if r.get("type") == "user" and isinstance(r["message"]["content"], list)
                for b in r["message"]["content"] if b.get("type") == "tool_result"}
    calls = {c.id: c for turn in read_transcript(THREE).turns for c in turn.tool_calls}
    assert sorted(calls) == sorted(used) and len(calls) == 23
    assert sorted(i for i, c in calls.items() if not c.answered) == sorted(set(used) - answered)
    assert sum(not c.answered for c in calls.values()) == 3


def test_tool_errors_are_flagged():
    t = read_transcript(LOG / "-src-experiments-claude_p" / "2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl")
    calls = [c for turn in t.turns for c in turn.tool_calls]
    assert (len(calls), sum(c.is_error for c in calls)) == (9, 6)


def test_slash_commands_and_interrupts():
    t = read_transcript(ENTIRE / "8e_0a64736bc7_0.full.jsonl")
    assert [x.text for x in t.turns if x.kind == "command"] == ["/mcp", "/pr"]
    assert [x.text for x in t.turns if x.kind == "interrupt"] == ["[Request interrupted by user for tool use]"]
    said = " ".join(x.text for x in t.turns if x.role == "user" and x.origin == "person")
    assert "Generate a PR title" not in said  # the command's body (isMeta) is the harness's
    assert any(x.text.startswith("Generate a PR title") for x in t.turns if x.kind == "harness")
    assert "Reconnected to" not in said  # a local command's output


def test_queued_prompts():
    removed = read_transcript(ENTIRE / "ad_a8171575ce_0.full.jsonl")
    queued = [x.text for x in removed.turns if x.kind == "queued"]
    assert len(queued) == 3 and queued[0].startswith("context: the screenshot is from our UI")
    delivered = read_transcript(CB2E)  # every enqueue was followed by the same prompt
    assert not any(x.kind == "queued" for x in delivered.turns)
    assert len(_prompts(delivered)) == len(set(_prompts(delivered))) == 5


def test_session_start_hook_context_never_becomes_a_turn():
    t = read_transcript(EF958)
    hook_words = ("clmail 6.0.10 session registered", "Status set to busy", "additionalContext", "hookSpecificOutput")
    assert not any(w in text for w in hook_words for text in _all_text(t))
    assert t.cwd == "-experiments/worktrees"  # as recorded; the folder name would decode otherwise
    assert t.version == "2.1.114"


def test_new_layout_subagents_are_folded():
    t = read_transcript(EF958)
    assert t.subagents == 2
    side = _prompts(t, sidechain=True)
    assert [p[:24] for p in side] == ["You are **alice**, a tea", "You are **bob** (round 2"]
    last_main = max(i for i, x in enumerate(t.turns) if not x.sidechain)
    assert all(x.sidechain for x in t.turns[last_main + 1:])  # appended after the parent's turns
    assert len(_prompts(t)) == 2

    codemie = read_transcript(CODEMIE)
    task = next(c for x in codemie.turns for c in x.tool_calls if c.name == "Task")
    assert codemie.subagents == 1
    sub_prompt = _prompts(codemie, sidechain=True)
    assert len(sub_prompt) == 1 and sub_prompt[0][:200] == task.input["prompt"][:200]
    assert sum(len(x.tool_calls) for x in codemie.turns if x.sidechain) == 20


def test_old_layout_subagents_are_linked_by_session_id():
    t = read_transcript(CB2E)
    assert t.subagents == 1  # agent-ea02459f; the Warmup and the orphan are left out
    assert _prompts(t, sidechain=True)[0].startswith("I need to understand the current project structure")
    everything = "\n".join(_all_text(t))
    assert "Warmup" not in [x.text for x in t.turns]
    assert "Investigate two issues in extract-coderabbit-feedback.py" not in everything

    # A later range folds nothing: its Task result (and so agent-ea02459f) came before it.
    task_line = next(off for off, line in _lines(CB2E) if b'"agentId":"ea02459f"' in line)
    later = read_transcript(CB2E, start=task_line + len(dict(_lines(CB2E))[task_line]))
    assert later.subagents == 0 and not any(x.sidechain for x in later.turns)


def test_agent_progress_copies_are_not_counted_twice():
    path = ENTIRE / "ad_a8171575ce_0.full.jsonl"
    t = read_transcript(path)
    copied = [b["text"] for r in _raw(path) if r.get("type") == "progress" and r["data"].get("type") == "agent_progress"
              for b in (r["data"].get("message", {}).get("message", {}).get("content") or [])
              if isinstance(b, dict) and b.get("type") == "text"]
    assert copied  # the fixture does mirror subagent messages
    assert t.subagents == 0 and not any(x.sidechain for x in t.turns)
    assert not set(copied) & {x.text for x in t.turns}


# -- offsets ----------------------------------------------------------------------------------


def _prompt_line_offsets(path: Path) -> list[int]:
    """Offsets of the lines holding a typed prompt (string content, not meta)."""
    return [off for off, line in _lines(path) for r in _objects(line)[:1]
            if r.get("type") == "user" and isinstance(r["message"]["content"], str) and not r.get("isMeta")
            and not r["message"]["content"].startswith("<")]


def test_reading_from_an_offset_gives_exactly_what_follows():
    lines = _lines(BIG)
    boundary = _prompt_line_offsets(BIG)[len(_prompt_line_offsets(BIG)) // 2]
    full, part = read_transcript(BIG), read_transcript(BIG, start=boundary)

    assert (part.start, part.end, part.bad_lines) == (boundary, BIG.stat().st_size, 0)
    assert part.records == sum(len(_objects(line)) for off, line in lines if off >= boundary)
    first = next(i for i, x in enumerate(full.turns) if x.timestamp == part.turns[0].timestamp)
    assert part.turns == full.turns[first:]
    assert part.started > full.started and part.ended == full.ended


def test_a_growing_file_is_read_in_pieces_without_loss_or_repeat(tmp_path):
    data, offsets = BIG.read_bytes(), _prompt_line_offsets(BIG)
    one, two = offsets[len(offsets) // 3], offsets[2 * len(offsets) // 3]
    grown = tmp_path / BIG.name
    grown.write_bytes(data[: one + 40])  # a line still being written

    pieces = [read_transcript(grown)]
    assert (pieces[0].end, pieces[0].bad_lines) == (one, 0)
    grown.write_bytes(data[:two])
    pieces.append(read_transcript(grown, start=pieces[-1].end))
    grown.write_bytes(data)
    pieces.append(read_transcript(grown, start=pieces[-1].end))

    full = read_transcript(BIG)
    assert [p.end for p in pieces] == [one, two, len(data)]
    assert sum(p.records for p in pieces) == full.records
    assert [x for p in pieces for x in _prompts(p)] == _prompts(full)
    assert sum(1 for p in pieces for x in p.turns if x.kind == "compact_summary") == 3


# -- discovery --------------------------------------------------------------------------------


def test_discover_over_a_claude_projects_tree(tmp_path):
    projects = tmp_path / ".claude" / "projects"
    projects.mkdir(parents=True)
    for project in LOG.iterdir():
        (projects / project.name).symlink_to(project, target_is_directory=True)
    (projects / "-codemie").symlink_to(CODEMIE.parent, target_is_directory=True)

    found = discover(projects)
    by_project = {}
    for s in found:
        by_project.setdefault(s.project_dir, []).append(s.session_id)
    assert by_project[CODERABBIT.name] == ["cb2e607c-c758-415a-8b45-c49e4631906a"]
    assert by_project[WORKTREES.name] == ["ef958aa1-0e93-49f0-bb71-150f63befcd1"]
    assert by_project["-codemie"] == ["turn-2"]
    assert len(found) == 11 and not any(s.session_id.startswith("agent-") for s in found)
    assert all(s.size == s.path.stat().st_size for s in found)

    folded = {s.session_id: read_transcript(s.path).subagents for s in found}
    assert folded["cb2e607c-c758-415a-8b45-c49e4631906a"] == 1
    assert folded["ef958aa1-0e93-49f0-bb71-150f63befcd1"] == 2
    assert folded["turn-2"] == 1
    assert sum(folded.values()) == 4
