"""Writes deb-src entries (deb822) for this Debian release's suites into the file named
by the first argument, derived from the system's own deb entries (/etc/apt/sources.list
and sources.list.d, one-line and deb822 forms); Debian's main mirror if there are none.
scripts/install_football.sh points a private apt at them to fetch Boost's source package,
leaving the system's apt configuration untouched."""

import glob
import os
import re
import sys
from typing import List


def release_codename() -> str:
  try:
    with open('/etc/os-release') as f:
      for line in f:
        if line.startswith('VERSION_CODENAME='):
          return line.split('=', 1)[1].strip().strip('"')
  except OSError:
    pass
  return ''


def from_deb822(text: str, suite_ok) -> List[str]:
  """deb-src stanzas for the enabled Debian `deb` stanzas of a .sources file."""
  entries = []
  for stanza in re.split(r'\n\s*\n', text):
    fields, order, key = {}, [], None
    for line in stanza.splitlines():
      if line.startswith('#'):
        continue
      if line[:1] in (' ', '\t') and key:
        fields[key] += '\n' + line
      elif ':' in line:
        key, value = line.split(':', 1)
        key = key.strip()
        fields[key] = value.strip()
        order.append(key)
    if 'deb' not in fields.get('Types', '').split():
      continue
    if fields.get('Enabled', 'yes').lower() == 'no':
      continue
    suites = [s for s in fields.get('Suites', '').split() if suite_ok(s)]
    if not suites or 'debian' not in fields.get('URIs', ''):
      continue
    fields['Types'] = 'deb-src'
    fields['Suites'] = ' '.join(suites)
    entries.append('\n'.join('%s: %s' % (k, fields[k]) for k in order if k in fields))
  return entries


def from_one_line(text: str, suite_ok) -> List[str]:
  """deb-src stanzas for the Debian `deb` lines of a sources.list file."""
  entries = []
  for line in text.splitlines():
    m = re.match(r'\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)\s+(.*)', line)
    if m and suite_ok(m.group(3)) and 'debian' in m.group(2):
      options = re.findall(r'([\w-]+)=(\S+)', (m.group(1) or '').strip('[] '))
      signed_by = ''.join('\nSigned-By: %s' % v for k, v in options if k == 'signed-by')
      entries.append('Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s%s' % (
          m.group(2), m.group(3), m.group(4).split('#')[0].strip(), signed_by))
  return entries


def main(output: str) -> None:
  codename = release_codename()

  def suite_ok(suite: str) -> bool:
    return not codename or suite == codename or suite.startswith(codename + '-')

  files = (['/etc/apt/sources.list'] if os.path.exists('/etc/apt/sources.list') else []) + (
      sorted(glob.glob('/etc/apt/sources.list.d/*.list') +
             glob.glob('/etc/apt/sources.list.d/*.sources')))
  entries = []
  for path in files:
    with open(path) as f:
      text = f.read()
    read = from_deb822 if path.endswith('.sources') else from_one_line
    entries += read(text, suite_ok)
  if not entries:  # Debian's main mirror.
    entries.append('Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: %s\n'
                   'Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg'
                   % (codename or 'bookworm'))
  with open(output, 'w') as f:
    f.write('\n\n'.join(entries) + '\n')


if __name__ == '__main__':
  main(sys.argv[1])
