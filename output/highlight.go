package output

import (
	"regexp"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/agentic-workspace/aw/output/visible"
)

// segment is a piece of a line, part of a match or not.
type segment struct {
	text string
	hit  bool
}

// highlighter finds a search's matches in a line again, to paint them as
// ripgrep does. The envelope holds the pattern but not how it was read
// (regular expression or literal, case or not): the reading kept is the
// first one whose first match starts at the column the engine reported,
// literal readings before regular expressions: "a.b" searched as a
// regular expression on "a.b or aXb" paints "a.b" alone rather than risk
// painting what a literal search did not match. No reading agrees:
// nothing is painted.
type highlighter struct {
	pattern string
	tried   bool
	res     []*regexp.Regexp
}

func (h *highlighter) segments(pattern, text string, column int) []segment {
	if h.pattern != pattern || !h.tried {
		h.pattern, h.tried, h.res = pattern, true, nil
		for _, p := range []string{regexp.QuoteMeta(pattern), "(?i)" + regexp.QuoteMeta(pattern), pattern, "(?i)" + pattern} {
			if re, err := regexp.Compile(p); err == nil {
				h.res = append(h.res, re)
			}
		}
	}
	for i, re := range h.res {
		loc := re.FindStringIndex(text)
		if loc == nil || loc[0] != column-1 {
			continue
		}
		if i > 0 { // this reading is the search's: try it first from now on
			h.res[0], h.res[i] = h.res[i], h.res[0]
		}
		var segs []segment
		at := 0
		for _, m := range re.FindAllStringIndex(text, -1) {
			if m[1] == m[0] {
				continue // an empty match paints nothing
			}
			segs = append(segs, segment{text: text[at:m[0]]}, segment{text: text[m[0]:m[1]], hit: true})
			at = m[1]
		}
		return append(segs, segment{text: text[at:]})
	}
	return []segment{{text: text}}
}

// fitSegments makes each segment visible, cuts the line to room columns
// ("…" where cut) and paints the matches. When the first match starts
// past two thirds of the room, the start of the line gives way to it.
func fitSegments(segs []segment, room int, color bool) string {
	shown := make([]segment, 0, len(segs))
	lead := -1
	width := 0
	for _, s := range segs {
		t := visible.Line(s.text)
		if s.hit && lead < 0 {
			lead = width
		}
		width += runewidth.StringWidth(t)
		shown = append(shown, segment{text: t, hit: s.hit})
	}
	if lead > room*2/3 && width > room {
		drop := min(lead-room/3, width-room+1) + 1 // and one column for "…"
		for i := range shown {
			sw := runewidth.StringWidth(shown[i].text)
			if drop <= 0 {
				break
			}
			if sw <= drop {
				drop -= sw
				shown[i].text = ""
				continue
			}
			shown[i].text = runewidth.TruncateLeft(shown[i].text, drop, "")
			drop = 0
		}
		shown = append([]segment{{text: "…"}}, shown...)
	}
	var b strings.Builder
	left := room
	for i, s := range shown {
		if left <= 0 {
			break
		}
		t := s.text
		rest := 0
		for _, r := range shown[i+1:] {
			rest += runewidth.StringWidth(r.text)
		}
		if w := runewidth.StringWidth(t); w > left {
			t = runewidth.Truncate(t, left, "…")
			left = 0
		} else if w == left && rest > 0 {
			t = runewidth.Truncate(t, left-1, "") + "…"
			left = 0
		} else {
			left -= w
		}
		if s.hit {
			t = paint(color, match, t)
		}
		b.WriteString(t)
	}
	return b.String()
}
