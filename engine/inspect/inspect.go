// Package inspect owns the read-only workspace_inspect actions: capabilities,
// overview, list, read, search, find, stat, changes and semantic_search.
// Every path goes through the workspace jail; walks hide denyPaths and never
// follow symlinks. It never writes a workspace file (only artifacts under
// .agentic/artifacts/), never prints and never starts a process.
package inspect

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// resolve jails a request path for reading. An empty path means the
// directory the jail is scoped to.
func resolve(ws *workspace.Workspace, p string) (workspace.Path, error) {
	if p == "" {
		p = ws.Jail.Scope
	}
	return ws.Jail.Resolve(p, workspace.Read)
}

// statPath stats a resolved path, turning "does not exist" into NOT_FOUND
// with a hint.
func statPath(jp workspace.Path, asked string) (fs.FileInfo, error) {
	fi, err := os.Stat(jp.Abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
		return nil, envelope.Errorf(envelope.NotFound,
			"%s does not exist; check the path with `aw inspect list` or `aw inspect find`", display(jp.Rel)).With("path", display(jp.Rel))
	}
	if err != nil {
		return nil, envelope.Errorf(envelope.Internal, "cannot stat %s: %v; check its permissions", display(jp.Rel), err).With("path", display(jp.Rel))
	}
	_ = asked
	return fi, nil
}

var errNotDir = errors.New("not a directory")

// display is the envelope form of a root-relative path.
func display(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// join appends a name to a root-relative directory path.
func join(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// clipLine shortens a line to at most n bytes without splitting a
// character and makes it valid UTF-8 (invalid bytes become U+FFFD). It
// reports whether the line was cut and whether it held invalid UTF-8.
func clipLine(b []byte, n int) (s string, cut, invalid bool) {
	if len(b) > n {
		b = trimPartialRune(b[:n])
		cut = true
	}
	if utf8.Valid(b) {
		return string(b), cut, false
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), cut, true
}

// trimPartialRune drops an incomplete UTF-8 sequence that a cut left at the
// end of b (a lead byte whose continuation bytes were cut off).
func trimPartialRune(b []byte) []byte {
	i := len(b) - 1
	for i > 0 && i > len(b)-4 && !utf8.RuneStart(b[i]) {
		i--
	}
	if i >= 0 && i < len(b) && b[i] >= 0xC0 && !utf8.FullRune(b[i:]) {
		return b[:i]
	}
	return b
}

// jsonLen estimates the JSON-encoded length of s (quotes and escapes).
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\t' || c == '\r':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}

// plural is "1 line" / "2 lines".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

func itoa(n int) string {
	return strconvItoa(int64(n))
}
