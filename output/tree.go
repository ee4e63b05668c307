package output

import (
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/agentic-workspace/aw/output/visible"
)

// entry is one path of a listing (inspect list, the overview's tree).
type entry struct {
	Path  string `json:"path"`
	Type  string `json:"type"`
	Size  int64  `json:"size"`
	Depth int    `json:"depth"`
}

// listing is a listing's data.
type listing struct {
	Path      string  `json:"path"`
	Entries   []entry `json:"entries"`
	Truncated bool    `json:"truncated"`
	Total     int     `json:"total"`
	Shown     int     `json:"shown"`
}

// name is an entry's name as ls -F marks it: "/" a directory, "@" a link.
func (e entry) name(s string) string {
	switch e.Type {
	case "directory":
		return s + "/"
	case "symlink":
		return s + "@"
	}
	return s
}

func (e entry) color() string {
	if e.Type == "directory" {
		return blue
	}
	return ""
}

// drawTree draws a listing as tree(1) does. An entry's parent is the
// entry named by its directory; one the listing does not hold (cut by a
// limit) hangs from the root. Names are cut to the width, never wrapped.
func drawTree(w io.Writer, l listing, f Format) {
	index := make(map[string]int, len(l.Entries))
	for i, e := range l.Entries {
		index[e.Path] = i
	}
	kids := map[int][]int{}
	dirs, files := 0, 0
	for i, e := range l.Entries {
		parent := -1
		if j, ok := index[path.Dir(e.Path)]; ok && j != i {
			parent = j
		}
		kids[parent] = append(kids[parent], i)
		if e.Type == "directory" {
			dirs++
		} else {
			files++
		}
	}
	fmt.Fprintln(w, paint(f.Color, blue, clip(visible.Line(or(l.Path, ".")), f.Width)))
	var walk func(parent int, prefix string)
	walk = func(parent int, prefix string) {
		under := l.Path + "/"
		if parent >= 0 {
			under = l.Entries[parent].Path + "/"
		}
		for k, i := range kids[parent] {
			branch, next := "├── ", "│   "
			if k == len(kids[parent])-1 {
				branch, next = "└── ", "    "
			}
			e := l.Entries[i]
			name := e.name(visible.Line(strings.TrimPrefix(e.Path, under)))
			room := max(f.Width-runewidth.StringWidth(prefix+branch), 4)
			fmt.Fprintln(w, prefix+branch+paint(f.Color, e.color(), clip(name, room)))
			walk(i, prefix+next)
		}
	}
	walk(-1, "")
	fmt.Fprintf(w, "\n%d %s, %d %s", dirs, plural(dirs, "directory", "directories"), files, plural(files, "file", "files"))
	if l.Truncated {
		fmt.Fprintf(w, " (%d of %d entries shown)", l.Shown, l.Total)
	}
	fmt.Fprintln(w)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// overviewView is the workspace's record, its tools and storage as
// tables, and its files as a tree.
func overviewView(w io.Writer, d viewData, f Format) bool {
	var o struct {
		Tools []struct {
			Name    string   `json:"name"`
			Actions []string `json:"actions"`
		} `json:"tools"`
		Storage []struct {
			Path   string `json:"path"`
			Holds  string `json:"holds"`
			Exists bool   `json:"exists"`
		} `json:"storage"`
		Tree *listing `json:"tree"`
	}
	if !d.decode(&o) || o.Tree == nil {
		return false
	}
	if d.rest(w, f, "tools", "storage", "tree") != nil {
		return false
	}
	if len(o.Tools) > 0 {
		fmt.Fprintln(w)
		rows := make([][]string, len(o.Tools))
		for i, t := range o.Tools {
			rows[i] = []string{t.Name, strings.Join(t.Actions, ", ")}
		}
		grid(w, []column{{header: "TOOL"}, {header: "ACTIONS", flex: true}}, rows, nil, f)
	}
	if len(o.Storage) > 0 {
		fmt.Fprintln(w)
		rows := make([][]string, len(o.Storage))
		for i, s := range o.Storage {
			rows[i] = []string{s.Path, yesNo(s.Exists), s.Holds}
		}
		grid(w, []column{{header: "STORAGE"}, {header: "EXISTS"}, {header: "HOLDS", flex: true}}, rows, nil, f)
	}
	fmt.Fprintln(w)
	drawTree(w, *o.Tree, f)
	return true
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// listView is a listing as ls -s prints one: size, then the path.
func listView(w io.Writer, d viewData, f Format) bool {
	var l listing
	if !d.decode(&l) || l.Entries == nil {
		return false
	}
	rows := make([][]string, len(l.Entries))
	colors := make([][]string, len(l.Entries))
	for i, e := range l.Entries {
		size := "-"
		if e.Type != "directory" {
			size = bytesize(e.Size)
		}
		rows[i] = []string{size, e.name(e.Path)}
		colors[i] = []string{"", e.color()}
	}
	grid(w, []column{{header: "SIZE", right: true}, {header: "PATH", flex: true}}, rows, colors, f)
	if l.Truncated {
		fmt.Fprintf(w, "(%d of %d entries shown)\n", l.Shown, l.Total)
	}
	return true
}

// readView is the numbered window itself: the summary above it says
// which lines of which file, and where to continue.
func readView(w io.Writer, d viewData, f Format) bool {
	var r struct {
		Content *string `json:"content"`
	}
	if !d.decode(&r) || r.Content == nil {
		return false
	}
	text := *r.Content
	if text == "" {
		return true
	}
	fmt.Fprint(w, wrapBlock(visible.Block(text), f.Width))
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
	return true
}
