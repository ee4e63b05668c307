package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/output/visible"
)

// views are the operations whose data reads better in a form of its own
// than as generic tables: one line per match, per commit, per file, as
// ripgrep and git print them; a tree; a record and its diff. A view that
// cannot read its data leaves the envelope to the generic rendering.
var views = map[string]func(w io.Writer, d viewData, f Format) bool{
	"inspect.search":   searchView,
	"inspect.overview": overviewView,
	"inspect.list":     listView,
	"inspect.read":     readView,
	"vcs.log":          logView,
	"vcs.status":       statusView,
	"tasks.show":       boardView,
	"approval.show":    approvalView,
	"approval.list":    approvalsView,
	"command.run":      jobView,
	"command.start":    jobView,
	"command.status":   jobView,
	"command.wait":     jobView,
	"command.output":   outputView,
}

const magenta = "\x1b[35m"

// viewData is an envelope's data twice: as JSON for a view to decode into
// the fields it knows, and in the engine's key order for the generic
// rendering of what a view leaves to it.
type viewData struct {
	raw []byte
}

func (d viewData) decode(v any) bool { return json.Unmarshal(d.raw, v) == nil }

// rest renders data without the keys a view showed itself.
func (d viewData) rest(w io.Writer, f Format, shown ...string) error {
	data, err := ordered(json.RawMessage(d.raw))
	if err != nil {
		return err
	}
	var left []kv
	for _, e := range data {
		if !contains(shown, e.key) {
			left = append(left, e)
		}
	}
	return generic(w, left, f)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// view renders env's data through its operation's view, if it has one.
func view(w io.Writer, env envelope.Envelope, f Format) bool {
	v := views[env.Operation]
	if v == nil || env.Data == nil || !env.OK {
		return false
	}
	raw, err := json.Marshal(env.Data)
	if err != nil {
		return false
	}
	return v(w, viewData{raw}, f)
}

func searchView(w io.Writer, d viewData, f Format) bool {
	var s struct {
		Pattern string `json:"pattern"`
		Matches []struct {
			Path   string   `json:"path"`
			Line   int      `json:"line"`
			Column int      `json:"column"`
			Text   string   `json:"text"`
			Before []string `json:"before"`
			After  []string `json:"after"`
		} `json:"matches"`
	}
	if !d.decode(&s) {
		return false
	}
	var h highlighter
	context := false
	for _, m := range s.Matches {
		context = context || len(m.Before) > 0 || len(m.After) > 0
	}
	prevPath, prevLine := "", 0
	for _, m := range s.Matches {
		first := m.Line - len(m.Before)
		if context && prevPath != "" && (m.Path != prevPath || first > prevLine+1) {
			fmt.Fprintln(w, "--") // as grep -C between groups
		}
		for i, b := range m.Before {
			if m.Path != prevPath || first+i > prevLine {
				searchLine(w, m.Path, first+i, '-', []segment{{text: b}}, f)
			}
		}
		searchLine(w, m.Path, m.Line, ':', h.segments(s.Pattern, m.Text, m.Column), f)
		for i, a := range m.After {
			searchLine(w, m.Path, m.Line+1+i, '-', []segment{{text: a}}, f)
		}
		prevPath, prevLine = m.Path, m.Line+len(m.After)
	}
	return true
}

// searchLine writes "path:line: text" (context lines with "-", as grep
// -C), cut to the width; when the match lies past the screen's edge the
// start of the line gives way to it.
func searchLine(w io.Writer, path string, line int, sep rune, segs []segment, f Format) {
	where := clip(fmt.Sprintf("%s%c%d%c", visible.Line(path), sep, line, sep), f.Width)
	out := paint(f.Color, magenta, where)
	if room := f.Width - runewidth.StringWidth(where) - 1; room > 0 {
		out += " " + fitSegments(segs, room, f.Color)
	}
	fmt.Fprintln(w, out)
}

func logView(w io.Writer, d viewData, f Format) bool {
	var l struct {
		Commits []struct {
			Hash    string    `json:"hash"`
			Author  string    `json:"author"`
			Date    time.Time `json:"date"`
			Subject string    `json:"subject"`
		} `json:"commits"`
	}
	if !d.decode(&l) {
		return false
	}
	for _, c := range l.Commits {
		hash := c.Hash
		if len(hash) > 7 {
			hash = hash[:7]
		}
		hash = visible.Line(hash)
		head := fmt.Sprintf("%s %-12s %-16s ", hash, relative(c.Date), clip(visible.Line(c.Author), 16))
		fmt.Fprintln(w, paint(f.Color, yellow, hash)+head[len(hash):]+clip(visible.Line(c.Subject), max(f.Width-runewidth.StringWidth(head), 10)))
	}
	return true
}

func statusView(w io.Writer, d viewData, f Format) bool {
	var s struct {
		Files []struct {
			Path     string `json:"path"`
			Index    string `json:"index"`
			Worktree string `json:"worktree"`
			OrigPath string `json:"origPath"`
		} `json:"files"`
	}
	if !d.decode(&s) {
		return false
	}
	for _, s := range s.Files {
		path := visible.Line(s.Path)
		if s.OrigPath != "" {
			path = visible.Line(s.OrigPath) + " -> " + path
		}
		index, tree := visible.Line(or(s.Index, " ")), visible.Line(or(s.Worktree, " "))
		color := green
		if strings.TrimSpace(index) == "" || index == "?" {
			color = red
		}
		fmt.Fprintf(w, "%s %s\n", paint(f.Color, color, index+tree), clip(path, max(f.Width-3, 10)))
	}
	return true
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
