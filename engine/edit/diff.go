package edit

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// unified renders one file's change as a unified diff (git's a/ b/ labels)
// and counts the added and deleted lines.
func unified(c *FileChange, before, after []byte) string {
	from, to := labels(c)
	if c.touchesLink() {
		return fmt.Sprintf("--- %s\n+++ %s\n%s -> %s\n", from, to, linkSide(c.ExistedBefore, c.BeforeMode, before), linkSide(c.Change != "delete", c.Mode, after))
	}
	if binary(before) || binary(after) {
		return fmt.Sprintf("Binary files %s and %s differ\n", from, to)
	}
	d := udiff.Unified(from, to, string(before), string(after))
	if d == "" && c.Mode != c.BeforeMode {
		return fmt.Sprintf("--- %s\n+++ %s\nmode %o -> %o\n", from, to, c.BeforeMode, c.Mode)
	}
	for _, line := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			c.Additions++
		case strings.HasPrefix(line, "-"):
			c.Deletions++
		}
	}
	return d
}

// labels are the diff's file names: git's a/ and b/, /dev/null for a
// file that did not exist before or does not after.
func labels(c *FileChange) (from, to string) {
	from, to = "a/"+c.Path, "b/"+c.Path
	if !c.ExistedBefore {
		from = "/dev/null"
	}
	if c.Change == "delete" {
		to = "/dev/null"
	}
	return from, to
}

func binary(b []byte) bool {
	head := b
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(b)
}

// Unified is one file's change as a unified diff, for changes made outside
// a transaction (a command's, shown by aw command diff); an empty before
// or after with existed false is a created or deleted file.
func Unified(path string, existedBefore, existsAfter bool, beforeMode, mode uint32, before, after []byte) (diff string, additions, deletions int) {
	c := &FileChange{Path: path, ExistedBefore: existedBefore, BeforeMode: beforeMode, Mode: mode, Change: "modify"}
	if !existsAfter {
		c.Change = "delete"
	}
	d := unified(c, before, after)
	return d, c.Additions, c.Deletions
}

// linkSide names one side of a change that involves a symlink.
func linkSide(exists bool, mode uint32, content []byte) string {
	switch {
	case !exists:
		return "(nothing)"
	case isLink(mode):
		return fmt.Sprintf("symlink to %q", content)
	}
	return fmt.Sprintf("a file of %d bytes", len(content))
}
