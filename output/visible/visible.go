// Package visible is how text from an agent (titles, argv, command lines,
// diffs, review text, page titles, file names) reaches a human's terminal.
// A terminal obeys control characters: "\r" plus spaces and a harmless
// command overwrites the line a human reads, "\x1b[2K" erases it, "\b"
// backs over words, and a bidirectional override shows "txt.exe" as
// "exe.txt". So every character that moves the cursor, changes the
// screen, reorders text or is invisible is shown as an escape, never
// written raw: the human reads what will run. The table renderer, the
// confirmation screen of a human verb, aw prompt's blocks and aw's stderr
// lines all go through it; JSON output goes through JSON.
package visible

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Hidden reports whether r is shown escaped on a terminal: C0 controls and
// DEL, C1 controls, bidirectional embeddings, overrides, isolates and
// marks, zero-width and other invisible characters, line and paragraph
// separators, and the tag and variation-selector blocks that can carry
// text no one sees.
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f: // C0, DEL
		return true
	case r >= 0x80 && r <= 0x9f: // C1 (0x9b is CSI on many terminals)
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c: // bidi marks
		return true
	case r >= 0x200b && r <= 0x200d, r >= 0x2060 && r <= 0x2064, r == 0xfeff: // zero-width, invisible operators, BOM
		return true
	case r == 0x00ad, r == 0x180e, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0: // soft hyphen, invisible fillers
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation
		return true
	case r >= 0xe0000 && r <= 0xe007f, r >= 0xe0100 && r <= 0xe01ef: // tags, variation selectors supplement
		return true
	}
	return false
}

// Line is s escaped for one line of a terminal: every Hidden character,
// newline and tab included, and every byte that is not UTF-8, becomes an
// escape (\r, \n, \t, \b, \x1b, \x7f, \u202e, \U000e0041, \xff).
func Line(s string) string { return escape(s, false) }

// Block is Line for a block of text (a diff, a review, a confirmation
// screen): newlines and tabs stay as they are, everything else Hidden is
// escaped.
func Block(s string) string { return escape(s, true) }

func escape(s string, block bool) string {
	i := firstHidden(s, block)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case block && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case !Hidden(r):
			b.WriteString(s[i : i+size])
		default:
			b.WriteString(escapeRune(r))
		}
		i += size
	}
	return b.String()
}

// firstHidden is the index of the first byte to escape, -1 when none: the
// common case (plain text) costs one scan and no allocation.
func firstHidden(s string, block bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 || c == 0x7f) && !(block && (c == '\n' || c == '\t')) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || mayHide(c) && Hidden(r) {
			return i
		}
		i += size
	}
	return -1
}

// mayHide reports whether a UTF-8 lead byte can begin a Hidden rune
// (U+0080–U+00AD, U+061C, U+115F–U+180E, U+200B–U+206F, U+3164,
// U+FEFF–U+FFFB, the tag planes): the scan decodes nothing else further.
func mayHide(c byte) bool {
	switch c {
	case 0xc2, 0xd8, 0xe1, 0xe2, 0xe3, 0xef, 0xf3:
		return true
	}
	return false
}

func escapeRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\t':
		return `\t`
	case '\n':
		return `\n`
	case '\v':
		return `\v`
	case '\f':
		return `\f`
	case '\r':
		return `\r`
	}
	switch {
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r > 0xffff:
		return fmt.Sprintf(`\U%08x`, r)
	default:
		return fmt.Sprintf(`\u%04x`, r)
	}
}

// JSON rewrites, inside an encoded JSON document, every Hidden
// character that encoding/json leaves raw (DEL, C1, bidi, zero-width, tags)
// as its \u escape. They can only occur inside strings, where the escape
// decodes to the same character: a program reads the same envelope, and a
// human who prints it to a terminal sees the escapes instead of obeying
// them. encoding/json already escapes C0 controls and U+2028/U+2029.
func JSON(doc []byte) []byte {
	i := 0
	for i < len(doc) {
		c := doc[i]
		if c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		if c == 0x7f {
			break
		}
		if !mayHide(c) {
			i++ // a continuation byte or a lead byte of something visible
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		if Hidden(r) {
			break
		}
		i += size
	}
	if i == len(doc) {
		return doc
	}
	out := make([]byte, 0, len(doc)+32)
	out = append(out, doc[:i]...)
	for i < len(doc) {
		r, size := utf8.DecodeRune(doc[i:])
		switch {
		case doc[i] == 0x7f:
			out = append(out, `\u007f`...)
		case size > 1 && Hidden(r):
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		default:
			out = append(out, doc[i:i+size]...)
		}
		i += size
	}
	return out
}
