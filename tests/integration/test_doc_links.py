"""Every relative link in README.md and docs/ leads somewhere: its file or folder exists
in the checkout, and its anchor (`page.md#a-heading`, `#a-heading`) names a heading of
that page as GitHub spells anchors.

Links inside code blocks and inline code are not links; web addresses are left to the
reader. Under Bazel the linked files come from this test's `data` (tests/integration/
BUILD): a page that links a new place needs it declared there too.
"""

import os
import pathlib
import re
from typing import Dict, Iterator, List, Set, Tuple

import pytest

from tests import helpers

_REPO = pathlib.Path(helpers.REPO)
_DOCS = [_REPO / 'README.md', *sorted((_REPO / 'docs').glob('**/*.md'))]
_FENCE = re.compile(r'^```.*?^```', re.S | re.M)
_INLINE_CODE = re.compile(r'`[^`\n]*`')
_LINK = re.compile(r'\]\(([^)\s]+)\)')
_HEADING = re.compile(r'^#{1,6}\s+(.+?)\s*#*\s*$', re.M)
_WEB = re.compile(r'^[a-z][a-z0-9+.-]*:', re.I)


def _prose(page: pathlib.Path) -> str:
  """The page without its code, where `](...)` is text, not a link."""
  return _INLINE_CODE.sub('', _FENCE.sub('', page.read_text()))


def _anchor(heading: str) -> str:
  """GitHub's anchor of a heading: links and code marks dropped, lower case, every
  character but letters, digits, '-', '_' and spaces removed, spaces made '-'."""
  text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', heading)
  text = re.sub(r'[^\w\- ]', '', text.replace('`', '').lower())
  return text.replace(' ', '-')


def _anchors(page: pathlib.Path, cache: Dict[pathlib.Path, Set[str]]) -> Set[str]:
  if page not in cache:
    found: Set[str] = set()
    for heading in _HEADING.findall(_FENCE.sub('', page.read_text())):
      anchor, n = _anchor(heading), 1
      while anchor in found:  # GitHub numbers a repeated heading's anchor.
        anchor = f'{_anchor(heading)}-{n}'
        n += 1
      found.add(anchor)
    cache[page] = found
  return cache[page]


def _links() -> Iterator[Tuple[pathlib.Path, str]]:
  for page in _DOCS:
    for target in _LINK.findall(_prose(page)):
      if not _WEB.match(target):
        yield page, target


def _broken(page: pathlib.Path, target: str,
            cache: Dict[pathlib.Path, Set[str]]) -> str:
  """Why the link is broken, or '' if it is not."""
  path, _, anchor = target.partition('#')
  # normpath, not resolve: under Bazel the files are symlinks out of the runfiles tree.
  linked = pathlib.Path(os.path.normpath(page.parent / path)) if path else page
  try:
    linked.relative_to(_REPO)
  except ValueError:
    return 'leads out of the repository'
  if not linked.exists():
    return 'no such file or folder'
  if anchor and linked.suffix == '.md' and anchor not in _anchors(linked, cache):
    return f'{linked.name} has no heading with anchor #{anchor}'
  return ''


def test_the_pages_have_links_to_check():
  # A changed link syntax or page set would otherwise pass with nothing checked.
  assert len(_DOCS) >= 10
  links = list(_links())
  assert len(links) >= 100
  assert any('#' in target and not target.startswith('#') for _, target in links)
  assert any(target.startswith('#') for _, target in links)


def test_every_relative_link_and_anchor_exists():
  cache: Dict[pathlib.Path, Set[str]] = {}
  broken: List[str] = []
  for page, target in _links():
    why = _broken(page, target, cache)
    if why:
      broken.append(f'{page.relative_to(_REPO)}: ({target}): {why}')
  if broken and 'TEST_SRCDIR' in os.environ:
    broken.append('(under Bazel, also a place missing from the data of '
                  'tests/integration/BUILD:test_doc_links)')
  assert not broken, 'broken links:\n' + '\n'.join(broken)


@pytest.mark.parametrize('heading, anchor', [
    ('On a GPU', 'on-a-gpu'),
    ("Time to CleanRL's score", 'time-to-cleanrls-score'),
    ('One machine with `--network=host`', 'one-machine-with---networkhost'),
    ('One machine, the default: a loopback-only namespace',
     'one-machine-the-default-a-loopback-only-namespace'),
    ('[vtrace.md](x.md) usage', 'vtracemd-usage'),
])
def test_anchors_are_spelled_as_github_spells_them(heading, anchor):
  assert _anchor(heading) == anchor


def test_a_broken_link_and_a_missing_anchor_are_named():
  cache: Dict[pathlib.Path, Set[str]] = {}
  page = _REPO / 'docs' / 'running.md'
  assert _broken(page, 'no_such_page.md', cache) == 'no such file or folder'
  assert 'no heading with anchor #no-such-heading' in _broken(
      page, 'testing.md#no-such-heading', cache)
  assert _broken(page, '../../outside.md', cache) == 'leads out of the repository'
  assert _broken(page, 'testing.md#the-tiers', cache) == ''
