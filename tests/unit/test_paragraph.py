"""A heuristic note's paragraph as the search index holds it: the session's words, not memgit's frame."""

from memgit.core import paragraph
from memgit.core.edited import phrase

FRAMED = ("The user asked: why does the importer drop empty rows? 2 follow-up requests came after. Earlier context "
          "(compacted): port the importer to pathlib. In the end: Rows are filtered before parsing. The agent "
          f"{phrase(['importer.py', 'test_import.py', 'a.py', 'b.py', 'c.py'])}, ran 4 shell commands, including "
          "`uv run pytest -x tests/`, made 7 other tool calls, delegated work to subagents and followed an approved "
          "plan. It ended with `uv run pytest -x tests/` passing (success).")
FRAME_WORDS = ("user", "follow-up", "requests", "compacted", "agent", "shell", "commands", "tool", "calls",
               "subagents", "approved", "plan", "ended", "passing", "success", "more")


def test_the_frame_words_leave_and_the_sessions_words_stay():
    text = paragraph.indexed(FRAMED)
    assert text == ("Asked: why does the importer drop empty rows? Earlier: port the importer to pathlib. Done: Rows "
                    "are filtered before parsing. Edited importer.py, test_import.py, a.py, b.py; "
                    "ran `uv run pytest -x tests/`.")
    words = set(text.lower().replace("`", " ").split())
    assert not words & set(FRAME_WORDS)


def test_a_session_without_tools_or_files_keeps_only_its_request():
    assert paragraph.indexed("The user asked: what is a monad? The agent answered without using tools. It ended "
                             "without a clear signal of success or failure (uncertain).") == "Asked: what is a monad?"
    assert paragraph.indexed("The user asked: run it. The agent ran 1 shell command, including `make`. It ended "
                             "with `make test` failing (fail).") == "Asked: run it. Ran `make`, `make test`."


def test_an_approved_plans_request_is_its_title():
    # "implement the plan" is memgit's wording for the request the harness sends when a plan is approved
    assert paragraph.indexed('The user asked: implement the plan "Consolidate logging to one file". The agent '
                             'made 3 other tool calls. It ended with the agent reporting the work done (success).'
                             ) == 'Asked: "Consolidate logging to one file".'


def test_other_prose_is_all_content():
    llm = "The agent edited config.py to fix the port. Then it added tests, which passed."
    assert paragraph.indexed(llm) == llm  # no "It ended … (outcome)." : not the heuristic's form
    edited = "It ended well, and the agent said so."
    assert paragraph.indexed(edited) == edited


def test_the_prompt_hook_reads_the_request_and_the_findings_not_the_work():
    text = paragraph.indexed(FRAMED)
    kept = paragraph.without_work(text)
    assert kept.endswith("Rows are filtered before parsing.") and "Edited" not in kept
    assert paragraph.without_work("Edited a.go; ran `make`.") == ""
    assert paragraph.unlabelled("Done: Rows are filtered before parsing.") == "Rows are filtered before parsing."
