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
// ripgrep and git print them. A view that cannot read its data leaves the
// envelope to the generic tables.
var views = map[string]func(w io.Writer, data []byte, f Format) bool{
	"inspect.search": searchView,
	"vcs.log":        logView,
	"vcs.status":     statusView,
}

const magenta = "\x1b[35m"

// view renders env's data through its operation's view, if it has one.
func view(w io.Writer, env envelope.Envelope, f Format) bool {
	v := views[env.Operation]
	if v == nil || env.Data == nil {
		return false
	}
	raw, err := json.Marshal(env.Data)
	if err != nil {
		return false
	}
	return v(w, raw, f)
}

func searchView(w io.Writer, raw []byte, f Format) bool {
	var d struct {
		Matches []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
			Text string `json:"text"`
		} `json:"matches"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return false
	}
	for _, m := range d.Matches {
		where := clip(fmt.Sprintf("%s:%d:", visible.Line(m.Path), m.Line), f.Width)
		line := paint(f.Color, magenta, where)
		if room := f.Width - runewidth.StringWidth(where) - 1; room > 0 {
			line += " " + clip(visible.Line(m.Text), room)
		}
		fmt.Fprintln(w, line)
	}
	return true
}

func logView(w io.Writer, raw []byte, f Format) bool {
	var d struct {
		Commits []struct {
			Hash    string    `json:"hash"`
			Author  string    `json:"author"`
			Date    time.Time `json:"date"`
			Subject string    `json:"subject"`
		} `json:"commits"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return false
	}
	for _, c := range d.Commits {
		hash := c.Hash
		if len(hash) > 7 {
			hash = hash[:7]
		}
		head := fmt.Sprintf("%s %-12s %-16s ", hash, ago(c.Date), clip(visible.Line(c.Author), 16))
		fmt.Fprintln(w, paint(f.Color, "\x1b[33m", hash)+head[len(hash):]+clip(visible.Line(c.Subject), max(f.Width-len(head), 10)))
	}
	return true
}

func statusView(w io.Writer, raw []byte, f Format) bool {
	var d struct {
		Files []struct {
			Path     string `json:"path"`
			Index    string `json:"index"`
			Worktree string `json:"worktree"`
			OrigPath string `json:"origPath"`
		} `json:"files"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return false
	}
	for _, s := range d.Files {
		path := visible.Line(s.Path)
		if s.OrigPath != "" {
			path = visible.Line(s.OrigPath) + " -> " + path
		}
		index, tree := or(s.Index, " "), or(s.Worktree, " ")
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

// ago is a time as a human reads it in a log: relative when recent.
func ago(t time.Time) string {
	d := time.Since(t)
	switch {
	case d < 0:
		return t.Format("2006-01-02")
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Format("2006-01-02")
}
