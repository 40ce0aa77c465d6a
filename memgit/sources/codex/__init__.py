"""OpenAI Codex CLI rollouts (`$CODEX_HOME/sessions/**/rollout-*.jsonl[.zst]`) as Transcripts.

The package's face is the one every source shows (see memgit.sources.files): AGENT,
default_root, scan, discover, read_transcript, peek_cwd; stream_size gives a `.zst` file's length in the
offsets read_transcript uses.
"""

from memgit.core.model import AGENT_CODEX
from memgit.sources.codex.discovery import default_root, discover
from memgit.sources.files import Listing, SessionFile, lazy_reader, stream_size

AGENT = AGENT_CODEX


__getattr__ = lazy_reader(__name__)  # read_transcript, peek_cwd: the reader is imported on first use


def scan(root) -> Listing:
    """The sessions under `root` (a folder that cannot be listed raises TranscriptError)."""
    return Listing(discover(root), {})


__all__ = ["AGENT", "Listing", "SessionFile", "scan", "default_root", "discover", "peek_cwd", "read_transcript", "stream_size"]
