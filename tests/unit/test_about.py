"""What the project is, in a line or two (memgit.core.about): the paragraph picked, and PROJECT.md's body."""

from __future__ import annotations

import pytest

from memgit.core import about
from memgit.core.about import CHECKOUT, SESSION, Description, first_paragraph
from memgit.core.scopes import Project

# The opening of cc-backend's README as Claude Code's Read tool showed it (../shared/fixtures/scale).
CC_README = """     1→# NOTE
     2→
     3→While we do our best to keep the master branch in a usable state, there is no guarantee the master branch works.
     4→Please do not use it for production!
     5→
     6→Please have a look at the [Release
     7→Notes](https://github.com/ClusterCockpit/cc-backend/blob/master/ReleaseNotes.md)
     8→for breaking changes!
     9→
    10→# ClusterCockpit REST and GraphQL API backend
    11→
    12→[![Build](https://github.com/ClusterCockpit/cc-backend/actions/workflows/test.yml/badge.svg)](https://github.com/ClusterCockpit/cc-backend/actions/workflows/test.yml)
    13→
    14→This is a Golang backend implementation for a REST and GraphQL API according to
    15→the [ClusterCockpit
    16→specifications](https://github.com/ClusterCockpit/cc-specifications). It also
    17→includes a web interface for ClusterCockpit. This implementation replaces the
    18→previous PHP Symfony based ClusterCockpit web interface. The reasons for
    19→switching from PHP Symfony to a Golang based solution are explained
    20→[here](https://github.com/ClusterCockpit/ClusterCockpit/wiki/Why-we-switched-from-PHP-Symfony-to-a-Golang-based-solution).
    21→
    22→## Overview
"""
CC_CLAUDE_MD = """1\t# CLAUDE.md
2\t
3\tThis file provides guidance to Claude Code (claude.ai/code) when working with
4\tcode in this repository.
5\t
6\t## Project Overview
7\t
8\tClusterCockpit is a job-specific performance monitoring framework for HPC
9\tclusters. This is a Golang backend that provides REST and GraphQL APIs, serves a
10\tSvelte-based frontend, and manages job archives and metric data from various
11\ttime-series databases.
12\t
13\t## Build and Development Commands
"""


def test_cc_backend_readme_skips_the_note_the_title_and_the_badge():
    assert first_paragraph(CC_README) == (
        "This is a Golang backend implementation for a REST and GraphQL API according to the ClusterCockpit "
        "specifications. It also includes a web interface for ClusterCockpit.")  # two sentences at most


def test_cc_backend_claude_md_skips_the_guidance_boilerplate():
    assert first_paragraph(CC_CLAUDE_MD).startswith(
        "ClusterCockpit is a job-specific performance monitoring framework for HPC clusters.")


@pytest.mark.parametrize(("markdown", "expected"), [
    ("<p align=\"center\"><img src=\"logo.png\"></p>\n\n[![CI](x)](y) [![PyPI](x)](y)\n\n"
     "**Pinion** syncs Typesense with Postgres, one table at a time.", "Pinion syncs Typesense with Postgres, one table at a time."),
    ("---\ntitle: x\n---\n# Tool\n\n> [!WARNING]\n> Alpha software, expect breakage everywhere today.\n\n"
     "Tool turns markdown notes into a static site for field research.", "Tool turns markdown notes into a static site for field research."),
    ("# Tool\n\n```sh\npip install tool and more words here\n```\n\nTool is a linter for YAML files written in Rust, fast.",
     "Tool is a linter for YAML files written in Rust, fast."),
    ("# X\n\n- a list item that is long enough to count as a paragraph\n\n| a | b |\n|---|---|\n\n"
     "X renders dashboards for job metrics collected on HPC clusters.", "X renders dashboards for job metrics collected on HPC clusters."),
    ("<!-- codebase-memory-mcp:start -->\n# Graph\n\nThis project uses codebase-memory-mcp to keep a graph of it.\n"
     "<!-- codebase-memory-mcp:end -->\n\n# App\n\nApp is a booking service for small clinics in rural areas.",
     "App is a booking service for small clinics in rural areas."),
    ("# App\n\nWebsite | [Getting started] | [Learn] | [Documentation]\n\nApp is the compiler and standard library "
     "for the App programming language.", "App is the compiler and standard library for the App programming language."),
    ("# App\n\n## Installation\n\nThe package is installed with pip from the internal index.\n\n## About\n\n"
     "App measures how long the build takes on every commit of the monorepo.", "App measures how long the build takes on every commit of the monorepo."),
    ("# AGENTS.md\n\nAlways run the tests before committing anything to the main branch.\n\nNever push to main.", None),
    ("Title\n=====\n\nShort.\n\nWork in progress", None),
    ("", None),
])
def test_first_paragraph_passes_over_what_does_not_describe(markdown, expected):
    assert first_paragraph(markdown) == expected


def test_a_long_paragraph_is_cut_at_a_sentence_within_the_limit():
    text = "Pinion syncs search indexes with Postgres tables. " * 10
    cut = first_paragraph(f"# Pinion\n\n{text}")
    assert len(cut) <= about.LIMIT and cut.endswith("tables.")
    one = "word " * 100
    assert first_paragraph(f"# P\n\nPinion is {one}") .endswith("…")
    assert about.cut("See e.g. the docs. Then more.", 20) == "See e.g. the docs."
    assert about.cut("One. Two. Three.") == "One. Two."


# ---- PROJECT.md's body ----------------------------------------------------------------------------


def project(body: str = "") -> Project:
    return Project(branch="projects/cc-backend", name="cc-backend", remotes=(), paths=(), body=body)


def test_an_empty_body_is_filled_and_read_back_without_the_marker():
    found = Description("ClusterCockpit is a monitoring framework for HPC clusters.", "CLAUDE.md", SESSION)
    body = about.refreshed("", found)
    assert body.startswith("<!-- memgit:about ") and body.endswith(found.text)
    assert about.about(project(body)) == found.text
    assert about.refreshed(body, found) is None  # nothing new: no rewrite


def test_memgit_s_own_text_gives_way_to_a_better_source_but_not_to_a_worse_one():
    claude = Description("From CLAUDE.md, the overview paragraph of it.", "CLAUDE.md", SESSION)
    readme = Description("From README.md, the opening paragraph of it.", "README.md", SESSION)
    checkout = Description("From the checkout's README.md on disk now.", "README.md", CHECKOUT)
    body = about.refreshed("", claude)
    body = about.refreshed(body, readme)
    assert about.about(project(body)) == readme.text
    assert about.refreshed(body, claude) is None
    body = about.refreshed(body, checkout)
    assert about.about(project(body)) == checkout.text
    changed = Description("The checkout's README.md after it changed.", "README.md", CHECKOUT)
    assert about.about(project(about.refreshed(body, changed))) == changed.text


def test_a_person_s_text_is_never_replaced():
    readme = Description("From README.md, the opening paragraph of it.", "README.md", CHECKOUT)
    assert about.refreshed("Internal billing service.\n\nOwned by the payments team.", readme) is None
    edited = about.refreshed("", readme).replace("opening paragraph", "first paragraph")
    assert about.refreshed(edited, readme) is None  # the digest no longer matches: a person's edit
    assert about.about(project(edited)) == "From README.md, the first paragraph of it."
    assert about.about(project("Internal billing service.\n\nOwned by the payments team.")) == "Internal billing service."
    assert about.about(project()) is None


def test_describe_takes_the_best_file_that_says_something():
    files = {"AGENTS.md": "# Agents\n\nAlways run make test before a commit.", "CLAUDE.md": CC_CLAUDE_MD}
    found = about.describe(files, origin=SESSION)
    assert found.file == "CLAUDE.md" and found.text.startswith("ClusterCockpit is")
    assert about.describe({"README.md": "# x"}, origin=SESSION) is None


@pytest.mark.parametrize("readme", [
    # fixtures/transcripts agentcmd: the create-turbo README as the session read it, never edited
    "# Turborepo starter\n\nThis Turborepo starter is maintained by the Turborepo core team.\n\n## Using this example\n\n"
    "Run the following command:\n\n## What's inside?\n\nThis Turborepo includes the following packages/apps:\n",
    "This is a [Next.js](https://nextjs.org) project bootstrapped with [`create-next-app`](https://nextjs.org/docs).\n",
    "# React + TypeScript + Vite\n\nThis template provides a minimal setup to get React working in Vite with HMR.\n",
])
def test_a_template_readme_left_as_it_came_does_not_say_what_the_project_is(readme):
    assert first_paragraph(readme) is None
    files = {"README.md": readme, "CLAUDE.md": CC_CLAUDE_MD}
    assert about.describe(files, origin=SESSION).file == "CLAUDE.md"  # the next file says it


def test_a_project_that_names_its_template_still_describes_itself():
    readme = "# Billing\n\nBilling is the invoicing service of Acme; it started from the Turborepo starter.\n"
    assert first_paragraph(readme) == "Billing is the invoicing service of Acme; it started from the Turborepo starter."


def test_a_template_s_text_an_older_memgit_kept_is_not_told_and_gives_way():
    kept = about.body(Description("This Turborepo starter is maintained by the Turborepo core team.", "README.md"))
    assert about.about(project(kept)) is None
    better = Description("Agent workflows: a monorepo of the agentcmd app and its packages.", "CLAUDE.md")
    assert about.refreshed(kept, better) == about.body(better)
