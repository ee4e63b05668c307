package inspect

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// ListRequest is the argument object of inspect.list.
type ListRequest struct {
	Path   string   `json:"path,omitempty" doc:"directory to list, relative to the workspace root; default: the workspace root"`
	Depth  int      `json:"depth,omitempty" doc:"levels to descend: 1 lists direct children only; default and maximum: the list.maxDepth setting (5)"`
	Ignore []string `json:"ignore,omitempty" doc:"extra globs to hide, on top of the list.ignore setting (node_modules, .git), e.g. ['dist', '*.log']"`
}

// Entry is one listed path.
type Entry struct {
	Path  string `json:"path"`
	Type  string `json:"type"` // file, directory, symlink, other
	Size  int64  `json:"size"` // bytes, for files
	Depth int    `json:"depth"`
}

// ListData is data of inspect.list; scripts rely on its field names.
type ListData struct {
	Path      string  `json:"path"`
	Depth     int     `json:"depth"` // the depth actually used
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"` // list.maxEntries stopped the listing
	Total     int     `json:"total"`
	Shown     int     `json:"shown"` // entries inline; all of them are in the artifact
}

// List lists a directory breadth-first, each level sorted by name, bounded
// by list.maxDepth and list.maxEntries. Symlinks are reported, never
// followed; denyPaths never appear; list.ignore entries are hidden (but a
// listing of an ignored directory itself works). The state directory
// .agentic/ appears as an entry but its contents only when it is the
// directory listed (or below it).
func List(ctx context.Context, ws *workspace.Workspace, req *ListRequest) (envelope.Envelope, error) {
	d, err := listTree(ctx, ws, req.Path, req.Depth, req.Ignore, ws.Settings.List.MaxDepth)
	if err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", "", d)
	env.Retention.Importance = envelope.Low
	env.Omit("data.entries")
	if err := spillEntries(ws, &env, d); err != nil {
		return envelope.Envelope{}, err
	}
	env.Summary = listSummary(d, env.Artifacts)
	return env, nil
}

func listSummary(d *ListData, arts []envelope.Artifact) string {
	files, dirs := 0, 0
	for _, e := range d.Entries {
		switch e.Type {
		case "file":
			files++
		case "directory":
			dirs++
		}
	}
	s := fmt.Sprintf("%s: %s to depth %d", d.Path, plural(d.Total, "entry", "entries"), d.Depth)
	if d.Truncated {
		s += " (stopped at list.maxEntries: list a sub-directory or lower --depth to see the rest)"
	}
	if len(arts) > 0 {
		s += fmt.Sprintf("; %d shown inline, all in %s", d.Shown, arts[0].Path)
	}
	return s
}

// spillEntries keeps the inline entries within maxToolResultChars and puts
// the whole listing in an artifact when they do not fit.
func spillEntries(ws *workspace.Workspace, env *envelope.Envelope, d *ListData) error {
	budget := ws.Settings.MaxToolResultChars - 1000
	used := 0
	d.Shown = 0
	for _, e := range d.Entries {
		if used += jsonLen(e.Path) + 60; used > budget {
			break
		}
		d.Shown++
	}
	if d.Shown == len(d.Entries) {
		return nil
	}
	// Appends into one buffer of the right size, not fmt: a listing can
	// hold hundreds of thousands of lines.
	const header = "type\tsize\tdepth\tpath\n"
	size := len(header)
	for _, e := range d.Entries {
		size += len(e.Type) + len(e.Path) + 24 // 24: tabs, newline, two numbers
	}
	b := append(make([]byte, 0, size), header...)
	for _, e := range d.Entries {
		b = append(b, e.Type...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, e.Size, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, int64(e.Depth), 10)
		b = append(b, '\t')
		b = append(b, e.Path...)
		b = append(b, '\n')
	}
	art, err := ws.Store.WriteArtifact("list", "list.tsv", b, fmt.Sprintf("all %d entries of %s (type, size, depth, path; tab-separated)", len(d.Entries), d.Path))
	if err != nil {
		return err
	}
	env.Artifacts = append(env.Artifacts, art)
	env.Fact("full listing of %s in %s", d.Path, art.Path)
	d.Entries = d.Entries[:d.Shown]
	return nil
}

// listTree does the breadth-first walk for list and overview.
func listTree(ctx context.Context, ws *workspace.Workspace, p string, depth int, ignore []string, maxDepth int) (*ListData, error) {
	if depth < 0 {
		return nil, envelope.Errorf(envelope.InvalidInput, "depth %d is negative: pass 1 for direct children, up to list.maxDepth %d", depth, ws.Settings.List.MaxDepth).With("field", "depth")
	}
	for _, g := range ignore {
		if !doublestar.ValidatePattern(strings.Trim(g, "/")) {
			return nil, envelope.Errorf(envelope.InvalidInput, "--ignore %q is not a valid glob (unbalanced [ or a bad escape)", g).With("field", "ignore")
		}
	}
	if depth == 0 || depth > ws.Settings.List.MaxDepth {
		depth = min(maxDepth, ws.Settings.List.MaxDepth)
	}
	base, fi, err := walkBase(ws, p)
	if err != nil {
		return nil, err
	}
	d := &ListData{Path: display(base.Rel), Depth: depth, Entries: []Entry{}}
	if !fi.IsDir() {
		d.Entries = append(d.Entries, Entry{Path: display(base.Rel), Type: fileType(fi.Mode()), Size: sizeOf(fi), Depth: 0})
		d.Total = 1
		return d, nil
	}
	if ws.Jail.Denied(base.Rel) {
		// Only an allowPaths root can be denied here (the jail refuses the
		// rest); everything below it is denied too, and readLevel tests
		// each child only against its own name.
		return d, nil
	}
	hide := workspace.NewPatterns(ws.Settings.List.Ignore, ignore)
	maxEntries := ws.Settings.List.MaxEntries
	type dir struct{ abs, rel, brel string }
	level := []dir{{abs: base.Abs, rel: base.Rel}}
	workers := runtime.GOMAXPROCS(0)
	for lv := 1; lv <= depth && len(level) > 0 && !d.Truncated; lv++ {
		var next []dir
		// Directories of one level are read in parallel, in batches, so a
		// listing that stops at maxEntries does not read the whole level.
		for startAt := 0; startAt < len(level) && !d.Truncated; startAt += 64 {
			batch := level[startAt:min(startAt+64, len(level))]
			kids := make([][]Entry, len(batch))
			var claimed atomic.Int64 // batch entries handed to a worker
			var wg sync.WaitGroup
			for range min(workers, len(batch)) {
				wg.Go(func() {
					for i := int(claimed.Add(1)) - 1; i < len(batch); i = int(claimed.Add(1)) - 1 {
						dd := batch[i]
						kids[i] = readLevel(ws, dd.abs, dd.rel, dd.brel, lv, hide)
					}
				})
			}
			wg.Wait()
			if ctx.Err() != nil {
				return nil, envelope.Errorf(envelope.Timeout, "list was cancelled: %v", ctx.Err())
			}
			for i, es := range kids {
				for _, e := range es {
					if len(d.Entries) >= maxEntries {
						d.Truncated = true
						break
					}
					d.Entries = append(d.Entries, e)
					// .agentic/ is shown but not entered: its transactions and
					// artifacts would crowd the project's own files out of a
					// bounded listing. Listing .agentic itself enters it.
					if e.Type == "directory" && e.Path != workspace.StateDir {
						name := e.Path[strings.LastIndexByte(e.Path, '/')+1:]
						next = append(next, dir{abs: filepath.Join(batch[i].abs, name), rel: e.Path, brel: join(batch[i].brel, name)})
					}
				}
				if d.Truncated {
					break
				}
			}
		}
		level = next
	}
	d.Total = len(d.Entries)
	return d, nil
}

// readLevel reads one directory's visible children, sorted by name. The
// parent directory was checked against denyPaths and the hidden globs, so
// only each child's own name needs testing.
func readLevel(ws *workspace.Workspace, abs, rel, brel string, depth int, hide *workspace.Patterns) []Entry {
	f, err := openDir(abs)
	if err != nil {
		return nil
	}
	defer f.Close()
	ents, _ := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	out := make([]Entry, 0, len(ents))
	for _, e := range ents {
		r := join(rel, e.Name())
		br := r // a listing of the root: base-relative is root-relative
		if brel != rel {
			br = join(brel, e.Name())
		}
		if ws.Jail.DeniedBelow(r) || hide.MatchBelow(br) {
			continue
		}
		en := Entry{Path: r, Type: fileType(e.Type()), Depth: depth}
		if e.Type().IsRegular() {
			en.Size, _ = sizeAt(f, e.Name())
		}
		out = append(out, en)
	}
	return out
}

func sizeOf(fi fs.FileInfo) int64 {
	if fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}
