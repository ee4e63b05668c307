package output

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// OffTerminalWidth is the width of `-o table` written to a file or a pipe.
const OffTerminalWidth = 120

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// clip shortens s to at most w display columns, ending in "…" when cut.
func clip(s string, w int) string {
	if runewidth.StringWidth(s) <= w {
		return s
	}
	return runewidth.Truncate(s, w, "…")
}

// wrap breaks text into lines of at most width columns, at spaces where it
// can and anywhere when a word is longer than a line.
func wrap(text string, width int) string {
	if width <= 0 || runewidth.StringWidth(text) <= width {
		return text
	}
	var lines []string
	line := ""
	for _, word := range strings.Split(text, " ") {
		for runewidth.StringWidth(word) > width {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			head := runewidth.Truncate(word, width, "")
			if head == "" {
				_, size := utf8.DecodeRuneInString(word) // wider than the line itself
				head = word[:size]
			}
			lines = append(lines, head)
			word = word[len(head):]
		}
		switch {
		case line == "":
			line = word
		case runewidth.StringWidth(line)+1+runewidth.StringWidth(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// wrapBlock wraps every line of a multi-line text (a diff, a review) to
// width, so nothing runs past the screen's edge; no character is dropped.
func wrapBlock(text string, width int) string {
	if width <= 0 {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.Contains(l, "\t") {
			l = expandTabs(l)
			lines[i] = l
		}
		if runewidth.StringWidth(l) > width {
			var parts []string
			for runewidth.StringWidth(l) > width {
				head := runewidth.Truncate(l, width, "")
				if head == "" {
					_, size := utf8.DecodeRuneInString(l)
					head = l[:size]
				}
				parts = append(parts, head)
				l = l[len(head):]
			}
			lines[i] = strings.Join(append(parts, l), "\n")
		}
	}
	return strings.Join(lines, "\n")
}

// expandTabs replaces tabs by the spaces to the next multiple of 8, as a
// terminal shows them, so that a line's width is what it measures.
func expandTabs(l string) string {
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col += runewidth.RuneWidth(r)
	}
	return b.String()
}
