"""Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json[l]`) as Transcripts.

The package's face is the one every source shows (see memgit.sources.files): AGENT,
default_root, scan, discover, read_transcript, peek_cwd.
"""

from memgit.core.model import AGENT_GEMINI
from memgit.sources.files import Listing, SessionFile, lazy_reader
from memgit.sources.gemini.discovery import default_root, discover

AGENT = AGENT_GEMINI


__getattr__ = lazy_reader(__name__)  # read_transcript, peek_cwd: the reader is imported on first use


def scan(root) -> Listing:
    """The sessions under `root` (a folder that cannot be listed raises TranscriptError)."""
    return Listing(discover(root), {})


__all__ = ["AGENT", "Listing", "SessionFile", "scan", "default_root", "discover", "peek_cwd", "read_transcript"]
