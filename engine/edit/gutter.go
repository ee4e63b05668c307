package edit

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// gutterRE matches the line-number gutter a numbered read adds: aw's own
// cat -n form ("     12\t") and the "12 | " form.
var gutterRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ *(\d+)(?:\t| \| | \|$)`) })

// hasGutter reports whether text still carries a read's gutter: a majority of
// the non-empty lines carry a gutter, at least two of them, and two adjacent
// lines carry numbers ascending by exactly one. The run is what separates
// read output (n, n+1, ...) from data that happens to use pipes or numbers.
func hasGutter(text string) bool {
	lines := strings.Split(text, "\n")
	nonEmpty, numbered := 0, 0
	run := false
	prev := -1 // number on the previous line, -1 when it had none
	for _, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) != "" {
			nonEmpty++
		}
		m := gutterRE().FindStringSubmatch(line)
		if m == nil {
			prev = -1
			continue
		}
		numbered++
		n, err := strconv.Atoi(m[1])
		if err != nil {
			prev = -1
			continue
		}
		if prev >= 0 && n == prev+1 {
			run = true
		}
		prev = n
	}
	return numbered >= 2 && numbered*2 > nonEmpty && run
}

// stripGutter removes a gutter from every line that carries one.
func stripGutter(text string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		if loc := gutterRE().FindStringIndex(line); loc != nil {
			lines[i] = line[loc[1]:]
		}
	}
	return strings.Join(lines, "\n")
}
