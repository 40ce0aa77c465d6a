"""Session notes: render and parse round-trip, placement, merging a resumed session."""

import pytest

from memgit.core.model import Learning, Note
from memgit.core.notes import merge_notes, note_path, note_slug, parse_note, render_note


def make_note(**kw) -> Note:
    base = dict(
        session="claude-code/0123abcd-0000-4000-8000-000000000000", agent="claude-code", project="pinion",
        title="Fix Typesense sync tests", summary="Asked to fix failing tests; added the client; all pass.",
        learnings=[Learning("command", "Tests run with `uv run pytest -x tests/`."),
                   Learning("preference", "No emoji in commit messages.")],
        cwd="/home/u/dev/pinion", git_branch="feat/sync", started="2026-11-20T10:00:03Z",
        ended="2026-11-20T11:12:40Z", outcome="success", keywords=["typesense", "pytest"],
    )
    base.update(kw)
    note = Note(**base)
    note.slug = note_slug(note.title)
    return note


def test_round_trip_is_exact():
    note = make_note()
    assert parse_note(render_note(note)) == note


def test_front_matter_keys_in_design_order_and_final_newline():
    text = render_note(make_note())
    keys = [line.split(":", 1)[0] for line in text.split("---")[1].strip().splitlines()]
    assert keys == ["session", "agent", "project", "cwd", "git_branch", "started", "ended", "outcome",
                    "extractor", "keywords"]
    assert text.endswith("\n") and not text.endswith("\n\n")


@pytest.mark.parametrize("value", ["0123", "yes", "1.10", "2026-11-20", "null", "~"])
def test_values_yaml_would_retype_stay_strings(value):
    note = make_note(project=value, git_branch=value)
    back = parse_note(render_note(note))
    assert back.project == value and back.git_branch == value


def test_unknown_keys_and_extra_body_a_person_added_are_kept():
    text = render_note(make_note()).replace("keywords:", "pinned: 'true'\nkeywords:")
    text += "\n## My notes\nThe staging box is flaky on Mondays.\n"
    note = parse_note(text)
    assert note.extra == {"pinned": "true"}
    assert "flaky on Mondays" in note.body_extra
    assert parse_note(render_note(note)) == note


def test_multiline_text_cannot_break_the_structure():
    note = make_note(title="Two\nlines", learnings=[Learning("fact", "a\n## Learnings\n- [gotcha] b")])
    back = parse_note(render_note(note))
    assert back.title == "Two lines"
    assert [item.type for item in back.learnings] == ["fact"]


def test_not_a_note_is_a_clear_error():
    with pytest.raises(ValueError, match="session"):
        parse_note("# just markdown\n")
    with pytest.raises(ValueError, match="front matter"):
        parse_note("---\nsession: [unclosed\n---\n# x\n")


def test_path_is_sharded_by_month_with_date_slug_and_id8():
    assert note_path(make_note(), "2026-01-01") == "sessions/2026/11/2026-11-20-fix-typesense-sync-tests-0123abcd.md"
    undated = make_note(started=None, ended=None)
    assert note_path(undated, "2026-01-05").startswith("sessions/2026/01/2026-01-05-")


@pytest.mark.parametrize("text,slug", [
    ("Fix Typesense sync tests!", "fix-typesense-sync-tests"),
    ("   ", "note"),
    ("a b c d e f g h", "a-b-c-d-e-f"),
    ("Ünïcode — dashes", "n-code-dashes"),
])
def test_note_slug(text, slug):
    assert note_slug(text) == slug


def test_merge_keeps_old_learnings_adds_new_and_takes_the_new_end():
    old = make_note()
    new = make_note(summary="Then added a retry.", ended="2026-11-21T09:00:00Z", outcome="partial",
                    learnings=[Learning("command", "Tests run with `uv run pytest -x tests/`."),
                               Learning("gotcha", "The sync times out on big indexes; raise the timeout.")])
    merged = merge_notes(old, new)
    assert [item.type for item in merged.learnings] == ["command", "preference", "gotcha"]
    assert merged.ended == "2026-11-21T09:00:00Z" and merged.started == old.started
    assert merged.outcome == "partial" and "Then added a retry." in merged.summary


def test_libyaml_and_pure_python_yaml_write_the_same_note(monkeypatch):
    import yaml

    note = make_note(project="0123", git_branch="yes", cwd="/home/ü/dev/naïve: x", keywords=["1.10", "null"])
    fast = render_note(note)
    monkeypatch.delattr(yaml, "CSafeDumper", raising=False)
    monkeypatch.delattr(yaml, "CBaseLoader", raising=False)
    assert render_note(note) == fast
    assert parse_note(fast) == note


def test_a_plain_front_matter_is_read_as_yaml_reads_it_and_any_other_goes_to_yaml():
    import random
    import string

    import yaml

    from memgit.core.notes import _dump_yaml, _plain_meta

    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits + " :#-'\"[]{},&*!|>%@`?~\t\\é/.\u2028"
    read_plainly = 0
    for i in range(4000):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        if i % 2:  # as render_note writes them
            text = _dump_yaml({"session": value, "keywords": [value[:4], value[4:]], "cwd": value[::-1]})
        else:  # as a person might edit them
            text = "session: " + "".join(rng.choice(alphabet + "\n") for _ in range(rng.randint(0, 14))) + "\n"
        quick = _plain_meta(text)
        if quick is None:
            continue
        read_plainly += 1
        assert quick == yaml.load(text, Loader=yaml.BaseLoader), text
    assert read_plainly > 1000
    assert _plain_meta("a: b\n  c\n") is None and _plain_meta("a: x # note\n") is None  # YAML's to read


def test_a_flow_list_of_plain_words_is_read_as_yaml_reads_it():
    """A note's keywords (`[a, b.c, d_e]`) are split at once; any other list goes item by item, or to YAML."""
    import random

    import yaml

    from memgit.core.notes import _plain_meta

    rng = random.Random(3)
    for _ in range(3000):
        items = ["".join(rng.choice("aZ09_.-' :#,é") for _ in range(rng.randint(1, 5)))
                 for _ in range(rng.randint(0, 4))]
        text = f"keywords: [{rng.choice([', ', ',', ' , ']).join(items)}]\n"
        quick = _plain_meta(text)
        if quick is not None:
            assert quick == yaml.load(text, Loader=yaml.BaseLoader), text
    assert _plain_meta("keywords: [request, span.py, a-b]\n") == {"keywords": ["request", "span.py", "a-b"]}
