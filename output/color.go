package output

import "strings"

// ANSI colors. They are written only around text already made visible,
// so nothing an agent wrote can add or end one.
const (
	red   = "\x1b[31m"
	green = "\x1b[32m"
	cyan  = "\x1b[36m"
	// yellow marks ids and pending states, blue directories, bold headers.
	yellow = "\x1b[33m"
	blue   = "\x1b[34m"
	bold   = "\x1b[1m"
	// match is a search match, as ripgrep paints it.
	match = "\x1b[1;31m"
	reset = "\x1b[0m"
)

func paint(on bool, color, s string) string {
	if !on || s == "" || color == "" {
		return s
	}
	return color + s + reset
}

// colorDiff colors a unified diff's lines; other text is left as it is.
func colorDiff(on bool, text string) string {
	if !on || !strings.Contains(text, "\n@@ ") && !strings.HasPrefix(text, "@@ ") && !strings.Contains(text, "\n+++ ") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "):
		case strings.HasPrefix(l, "@@"):
			lines[i] = paint(true, cyan, l)
		case strings.HasPrefix(l, "+"):
			lines[i] = paint(true, green, l)
		case strings.HasPrefix(l, "-"):
			lines[i] = paint(true, red, l)
		}
	}
	return strings.Join(lines, "\n")
}
