package output

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// render is the table view of one envelope at width columns.
func render(t *testing.T, op string, data any, width int, color bool) string {
	t.Helper()
	env := envelope.New(op, "summary", data)
	env.Operation = op
	var b bytes.Buffer
	if err := Render(&b, env, Format{Table: true, Width: width, Color: color}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHighlightReadings(t *testing.T) {
	for _, c := range []struct {
		pattern, text string
		column        int
		want          []string // the painted pieces
	}{
		{"a.b", "x a.b aXb", 3, []string{"a.b"}},                       // literal first
		{"a.b", "x aXb a.b", 3, []string{"aXb", "a.b"}},                // only the regexp starts at 3
		{"NEEDLE", "a Needle needle", 3, []string{"Needle", "needle"}}, // without case
		{"x+", "axxb", 2, []string{"xx"}},
		{"zzz", "no match here", 1, nil}, // no reading agrees: nothing painted
		{"(", "a ( b", 3, []string{"("}}, // not a regexp: the literal
		{"^", "abc", 1, nil},             // empty matches paint nothing
	} {
		var h highlighter
		var got []string
		for _, s := range h.segments(c.pattern, c.text, c.column) {
			if s.hit {
				got = append(got, s.text)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q in %q at %d: painted %q, want %q", c.pattern, c.text, c.column, got, c.want)
		}
	}
}

func TestFitSegments(t *testing.T) {
	segs := []segment{{text: strings.Repeat("宽", 50) + " "}, {text: "needle", hit: true}, {text: " tail\x1b[2K"}}
	for _, room := range []int{10, 20, 41, 80, 200} {
		got := fitSegments(segs, room, true)
		plain := strings.NewReplacer(match, "", reset, "").Replace(got)
		if w := runewidth.StringWidth(plain); w > room {
			t.Errorf("room %d: %d columns: %q", room, w, got)
		}
		if strings.Contains(plain, "\x1b") {
			t.Errorf("room %d: a raw escape: %q", room, got)
		}
		if room >= 20 && !strings.Contains(got, match+"needle"+reset) {
			t.Errorf("room %d: the match gave way: %q", room, got)
		}
	}
	if got := fitSegments(segs, 200, false); strings.Contains(got, "\x1b[1") || !strings.HasSuffix(got, ` tail\x1b[2K`) {
		t.Errorf("without color: %q", got)
	}
}

func TestTreeShape(t *testing.T) {
	data := map[string]any{"tree": map[string]any{"path": ".", "entries": []map[string]any{
		{"path": "b", "type": "directory"},
		{"path": "b/c.txt", "type": "file"},
		{"path": "b/d", "type": "directory"},
		{"path": "b/d/e", "type": "symlink"},
		{"path": "x/y/orphan.txt", "type": "file"}, // its directories were cut by a limit
		{"path": "z.txt", "type": "file"},
	}, "truncated": true, "shown": 6, "total": 9}}
	got := render(t, "inspect.overview", data, 80, false)
	want := `.
├── b/
│   ├── c.txt
│   └── d/
│       └── e@
├── x/y/orphan.txt
└── z.txt

2 directories, 4 files (6 of 9 entries shown)
`
	if !strings.HasSuffix(got, want) {
		t.Errorf("tree:\n%s\nwant the end:\n%s", got, want)
	}
}

func TestGridFits(t *testing.T) {
	long := strings.Repeat("word ", 40)
	data := map[string]any{"items": []map[string]any{
		{"id": "item_0123456789abcdefghijk", "name": long, "size": 12, "sha256": strings.Repeat("f", 64), "note": long},
	}}
	for _, width := range []int{40, 80, 120} {
		out := render(t, "x.list", data, width, false)
		for _, l := range strings.Split(out, "\n") {
			if w := runewidth.StringWidth(l); w > width {
				t.Errorf("width %d: a line of %d:\n%s", width, w, out)
			}
		}
		if !strings.Contains(out, "item_0123456789abcdefghijk") {
			t.Errorf("width %d: the id was cut:\n%s", width, out)
		}
	}
	if out := render(t, "x.list", data, 40, false); !strings.Contains(out, "not shown for the width: note, sha256") {
		t.Errorf("the left-out columns are not named:\n%s", out)
	}
}

func TestRecordTimesAndNesting(t *testing.T) {
	at := time.Now().Add(-3 * time.Minute).UTC().Format(time.RFC3339Nano)
	out := render(t, "x.show", map[string]any{"count": 7, "sandbox": map[string]any{"network": false}, "createdAt": at, "title": "a\nb"}, 80, false)
	for _, want := range []string{"\ncount:            7\n", "\nsandbox.network:  false\n", "(3m ago)\n", "\n\ntitle:\na\nb\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

func TestRelative(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(-90 * time.Second), "1m ago"},
		{now.Add(23*time.Hour + 30*time.Minute), "in 23h"},
		{now.Add(-72 * time.Hour), "3d ago"},
		{now.Add(-5 * time.Second), "5s ago"},
	} {
		if got := relative(c.t); got != c.want {
			t.Errorf("%v: %q, want %q", c.t, got, c.want)
		}
	}
	if got := bytesize(1536); got != "1.5K" {
		t.Errorf("bytesize(1536) = %q", got)
	}
}

// BenchmarkSearchView: 1000 matches (the default max_results) painted and
// fitted to 80 columns.
func BenchmarkSearchView(b *testing.B) {
	matches := make([]map[string]any, 1000)
	for i := range matches {
		matches[i] = map[string]any{"path": "src/some/dir/file.go", "line": i + 1, "column": 9, "text": "\treturn needle(x) + needle(y) // " + strings.Repeat("padding ", 10)}
	}
	env := envelope.New("inspect.search", "1000 matches", map[string]any{"pattern": "needle", "matches": matches})
	env.Operation = "inspect.search"
	f := Format{Table: true, Width: 80, Color: true}
	for b.Loop() {
		Render(&bytes.Buffer{}, env, f)
	}
}

// BenchmarkOverviewTree: a 500-entry tree (list.maxEntries' default).
func BenchmarkOverviewTree(b *testing.B) {
	entries := make([]map[string]any, 0, 500)
	for d := 0; d < 20; d++ {
		dir := "dir" + strings.Repeat("x", d)
		entries = append(entries, map[string]any{"path": dir, "type": "directory"})
		for f := 0; f < 24; f++ {
			entries = append(entries, map[string]any{"path": dir + "/file" + strings.Repeat("y", f) + ".go", "type": "file", "size": 100})
		}
	}
	env := envelope.New("inspect.overview", "overview", map[string]any{"root": "/w", "tree": map[string]any{"path": ".", "entries": entries}})
	env.Operation = "inspect.overview"
	f := Format{Table: true, Width: 80}
	for b.Loop() {
		Render(&bytes.Buffer{}, env, f)
	}
}
