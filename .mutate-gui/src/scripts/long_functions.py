#!/usr/bin/env python3
"""Lists C++ functions longer than a limit (lines from signature to closing brace).

A brace-matching scan, not a parser: comments, string and character literals
(raw strings too) are blanked, then each '{' is classified by the text before
it. A brace opens a function body when that text ends like a signature (')',
then const/noexcept/override/a trailing return type, or a constructor's
initializer list) at namespace or class scope; braces inside a function
(blocks, lambdas) belong to it. Good enough for this code base's style
(.clang-format); it errs towards listing, never crashes on odd input.
"""
import argparse
import os
import re
import sys

SCOPE_RE = re.compile(r'^(?:template\s*<.*>\s*)?(?:namespace\b|(?:class|struct|union|enum)\b|extern\s+"C")', re.S)
CONTROL_RE = re.compile(r'^(?:if|for|while|switch|catch|do|else|try|return)\b')
SIGNATURE_END_RE = re.compile(
    r'\)\s*(?:const|noexcept(?:\([^()]*\))?|override|final|mutable|&&|&|\s)*(?:->\s*[\w:<>,\s\*&]+)?$', re.S)
NAME_RE = re.compile(r'((?:[\w~]+::)*(?:operator\s*[^\s(]+|operator\(\)|[\w~]+))\s*(?:<[^()]*>)?\s*\($')


def blank_literals(text):
    """Replaces comments and literals with spaces, keeping newlines (line numbers)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r'[^\n]', ' ', text[i + 2:j]))
            i = j
        elif c in '"\'':
            if c == "'" and i > 0 and (text[i - 1].isalnum()):  # digit separator 1'000
                out.append(' ')
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def classify(header, in_function):
    """'scope', 'function', 'block' or 'other' for the brace after `header`."""
    h = ' '.join(l for l in header.split('\n') if not l.lstrip().startswith('#'))
    h = ' '.join(h.split())
    if in_function:
        return 'block'
    if SCOPE_RE.match(h):
        return 'scope'
    if not h or CONTROL_RE.match(h) or '(' not in h:
        return 'other'
    before_paren = h.split('(', 1)[0]
    if '=' in before_paren and 'operator' not in before_paren:
        return 'other'  # an initializer or a lambda bound to a name
    if SIGNATURE_END_RE.search(h):
        return 'function'
    if re.search(r'\)\s*:\s*[\w:]+\s*[({]', h) and h[-1] in ')}':
        return 'function'  # a constructor after its initializer list
    return 'other'


def signature_line(text, start, end):
    """The line of the signature's first word, past preprocessor lines and blanks."""
    line = text.count('\n', 0, start) + 1
    for l in text[start:end].split('\n'):
        if l.strip() and not l.lstrip().startswith('#'):
            break
        line += 1
    return line


def class_name(header):
    h = ' '.join(l for l in header.split('\n') if not l.lstrip().startswith('#'))
    m = re.search(r'\b(?:class|struct|union)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)', h)
    return m.group(1) if m else ''


def function_name(header):
    h = ' '.join(header.split())
    depth = 0
    # the name is what stands before the parameter list's '(': the first '(' at depth 0
    for k, ch in enumerate(h):
        if ch == '<':
            depth += 1
        elif ch == '>' and depth > 0:
            depth -= 1
        elif ch == '(' and depth == 0:
            m = NAME_RE.search(h[:k + 1])
            if m:
                return m.group(1).replace(' ', '')
            break
    return '?'


def scan(path, limit):
    with open(path, encoding='utf-8', errors='replace') as f:
        text = blank_literals(f.read())
    found = []
    stack = []  # (kind, start_line, name)
    header_start = 0
    line = 1
    for i, c in enumerate(text):
        if c == '\n':
            line += 1
        elif c == ';' and not any(k in ('function', 'block') for k, _, _ in stack):
            if not stack or stack[-1][0] == 'scope':
                header_start = i + 1
        elif c == '{':
            in_function = any(k == 'function' for k, _, _ in stack)
            header = text[header_start:i]
            kind = classify(header, in_function)
            if kind == 'function':
                start_line = signature_line(text, header_start, i)
                name = function_name(header)
                owners = [n for k, _, n in stack if k == 'scope' and n]
                if owners and '::' not in name:
                    name = '::'.join(owners + [name])  # a member defined in its class
                stack.append((kind, start_line, name))
            elif kind == 'scope':
                stack.append((kind, line, class_name(header)))
            else:
                stack.append((kind, line, ''))
            if kind in ('scope', 'function'):
                header_start = i + 1
        elif c == '}':
            if not stack:
                header_start = i + 1
                continue
            kind, start, name = stack.pop()
            if kind == 'function':
                length = line - start + 1
                if length > limit:
                    found.append((length, start, name))
            if kind in ('scope', 'function'):
                header_start = i + 1
            elif kind == 'other' and (not stack or stack[-1][0] == 'scope'):
                pass  # an initializer brace: the declaration goes on to its ';' or body
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('paths', nargs='*', default=['engine', 'views', 'app'])
    ap.add_argument('--limit', type=int, default=80, help='list functions longer than this many lines (80)')
    args = ap.parse_args()
    rows = []
    for root in args.paths:
        files = [root] if os.path.isfile(root) else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(('.cpp', '.h', '.hpp', '.cc'))]
        for path in sorted(files):
            for length, start, name in scan(path, args.limit):
                rows.append((length, f'{path}:{start}', name))
    rows.sort(key=lambda r: (-r[0], r[1]))
    for length, where, name in rows:
        print(f'{length:5d}  {where}  {name}')
    print(f'{len(rows)} function(s) over {args.limit} lines', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
