package vcs

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// StatusRequest is status's arguments.
type StatusRequest struct {
	Paths   []string `json:"paths,omitempty" doc:"only these paths (files or directories, relative to the workspace root); default: the whole repository"`
	Ignored bool     `json:"ignored,omitempty" doc:"list ignored files too (status !!); default false"`
}

// FileStatus is one path in porcelain v1 letters, so a script can compare
// it with git status --porcelain.
type FileStatus struct {
	Path     string `json:"path"`
	Index    string `json:"index"`
	Worktree string `json:"worktree"`
	OrigPath string `json:"origPath,omitempty"`
}

// StatusData is vcs.status's data.
type StatusData struct {
	Branch    string       `json:"branch"`
	Head      string       `json:"head"`
	Files     []FileStatus `json:"files"`
	Total     int          `json:"total"`
	Truncated bool         `json:"truncated,omitempty"`
}

// Status lists changed, untracked (one by one, as -uall) and, on request,
// ignored files like `git status --porcelain`.
func Status(ctx context.Context, ws *workspace.Workspace, req *StatusRequest) (envelope.Envelope, error) {
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	filters, err := rp.filters(req.Paths)
	if err != nil {
		return envelope.Envelope{}, err
	}
	branch, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	changes, _, err := rp.status(head, filters, true, req.Ignored)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &StatusData{Branch: branch, Files: []FileStatus{}}
	if !head.IsZero() {
		d.Head = head.String()
	}
	var full strings.Builder
	budget := ws.Settings.MaxToolResultChars
	for _, c := range changes {
		p, ok := rp.toWS(c.path)
		if !ok {
			continue
		}
		if ws.Jail.Denied(strings.TrimSuffix(p, "/")) {
			continue
		}
		orig := ""
		if c.orig != "" {
			orig, _ = rp.toWS(c.orig)
		}
		fs := FileStatus{Path: p, Index: string(c.x), Worktree: string(c.y), OrigPath: orig}
		line := fmt.Sprintf("%c%c %s", c.x, c.y, p)
		if orig != "" {
			line = fmt.Sprintf("%c%c %s -> %s", c.x, c.y, orig, p)
		}
		full.WriteString(line + "\n")
		d.Total++
		if budget -= len(line) + 48; budget < 0 {
			d.Truncated = true
			continue
		}
		d.Files = append(d.Files, fs)
	}
	where := "branch " + branch
	if branch == "" {
		where = "detached HEAD " + short(head)
	} else if head.IsZero() {
		where += " (no commits yet)"
	}
	summary := fmt.Sprintf("On %s: %s.", where, describeCounts(changes))
	if d.Total == 0 {
		summary = fmt.Sprintf("On %s: nothing to commit, working tree clean.", where)
	}
	env := envelope.New("", summary, d)
	if d.Truncated {
		art, err := ws.Store.WriteArtifact("vcs-status", "status.txt", []byte(full.String()), "every path of the status in porcelain v1 form")
		if err != nil {
			return envelope.Envelope{}, err
		}
		env.Artifacts = append(env.Artifacts, art)
		env.Summary += fmt.Sprintf(" %d of %d paths are inline; all of them are in %s.", len(d.Files), d.Total, art.Path)
	}
	env.Omit("data.files")
	env.Fact("vcs status on %s: %s", where, describeCounts(changes))
	return env, nil
}

func describeCounts(cs []change) string {
	var staged, unstaged, untracked, ignored, conflicts int
	for _, c := range cs {
		switch {
		case c.x == '?':
			untracked++
		case c.x == '!':
			ignored++
		case c.x == 'U' || c.y == 'U' || (c.x == 'A' && c.y == 'A') || (c.x == 'D' && c.y == 'D'):
			conflicts++
		default:
			if c.x != ' ' {
				staged++
			}
			if c.y != ' ' {
				unstaged++
			}
		}
	}
	parts := []string{fmt.Sprintf("%d staged", staged), fmt.Sprintf("%d unstaged", unstaged), fmt.Sprintf("%d untracked", untracked)}
	if conflicts > 0 {
		parts = append(parts, fmt.Sprintf("%d conflicted", conflicts))
	}
	if ignored > 0 {
		parts = append(parts, fmt.Sprintf("%d ignored", ignored))
	}
	return strings.Join(parts, ", ")
}

// filters turns path arguments into repository paths through the jail.
func (rp *repo) filters(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		rel, err := rp.jailPath(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	if len(out) == 0 && rp.prefix != "" {
		out = []string{strings.TrimSuffix(rp.prefix, "/")}
	}
	return out, nil
}

// status computes every path's porcelain letters, sorted as git prints
// them: tracked changes by path, then untracked, then ignored.
func (rp *repo) status(head plumbing.Hash, filters []string, untracked, ignored bool) ([]change, *scan, error) {
	idx, err := readIndex(rp.gitDir)
	if err != nil {
		return nil, nil, vcsErr("reading the index", err)
	}
	s := newScan(rp, idx, filters, untracked, ignored)
	cfg := loadConfig(rp.commonDir())
	if err := s.worktree(baseIgnore(rp.commonDir(), cfg.get("core", "", "excludesfile"))); err != nil {
		return nil, nil, vcsErr("reading the worktree", err)
	}
	var headTree plumbing.Hash
	if !head.IsZero() {
		c, err := rp.commit(head)
		if err != nil {
			return nil, nil, vcsErr("reading HEAD's commit", err)
		}
		headTree = c.TreeHash
	}
	stagedList, err := s.staged(headTree)
	if err != nil {
		return nil, nil, vcsErr("comparing HEAD with the index", err)
	}
	byPath := map[string]int{}
	var out []change
	for _, c := range stagedList {
		c.y = ' '
		out = append(out, c)
	}
	// Exact renames: a deletion and an addition of the same blob.
	renameExact(s, out)
	for i := range out {
		byPath[out[i].path] = i
	}
	// Unmerged paths.
	for i := 0; i < len(idx.entries); {
		e := &idx.entries[i]
		if e.stage == 0 {
			i++
			continue
		}
		var stages [4]bool
		j := i
		for j < len(idx.entries) && idx.entries[j].name == e.name {
			stages[idx.entries[j].stage] = true
			j++
		}
		if s.inside(e.name) {
			out = append(out, change{path: e.name, x: 'U', y: 'U'})
			c := &out[len(out)-1]
			switch {
			case stages[1] && stages[2] && stages[3]:
			case !stages[1] && stages[2] && stages[3]:
				c.x, c.y = 'A', 'A'
			case stages[1] && stages[2]:
				c.x, c.y = 'U', 'D'
			case stages[1] && stages[3]:
				c.x, c.y = 'D', 'U'
			case stages[2]:
				c.x, c.y = 'A', 'U'
			case stages[3]:
				c.x, c.y = 'U', 'A'
			default:
				c.x, c.y = 'D', 'D'
			}
		}
		i = j
	}
	// Worktree against the index.
	for i := range idx.entries {
		y := s.wt[i]
		if y == 0 {
			continue
		}
		e := &idx.entries[i]
		if k, ok := byPath[e.name]; ok {
			out[k].y = y
			continue
		}
		out = append(out, change{path: e.name, x: ' ', y: y})
	}
	// Renamed-away sources show only in their destination's line.
	kept := out[:0]
	for _, c := range out {
		if c.x != 0 {
			kept = append(kept, c)
		}
	}
	out = kept
	sort.Slice(out, func(a, b int) bool { return out[a].path < out[b].path })
	for _, p := range s.untrackd {
		out = append(out, change{path: p, x: '?', y: '?'})
	}
	for _, p := range s.ignord {
		out = append(out, change{path: p, x: '!', y: '!'})
	}
	return out, s, nil
}

// renameExact pairs staged deletions with staged additions of the same
// blob, as git's rename detection does for identical content; the
// deletion's entry is cleared (x = 0).
func renameExact(s *scan, cs []change) {
	deleted := map[plumbing.Hash][]int{}
	var headTree plumbing.Hash
	for i, c := range cs {
		if c.x == 'D' {
			if headTree.IsZero() {
				_, h, _ := s.rp.head()
				if cm, err := s.rp.commit(h); err == nil {
					headTree = cm.TreeHash
				}
			}
			if te, ok := treeEntry(s.rp, headTree, c.path); ok {
				deleted[te.Hash] = append(deleted[te.Hash], i)
			}
		}
	}
	if len(deleted) == 0 {
		return
	}
	for i := range cs {
		if cs[i].x != 'A' {
			continue
		}
		pos, ok := s.tracked[cs[i].path]
		if !ok {
			continue
		}
		h := s.idx.entries[pos].hash
		if list := deleted[h]; len(list) > 0 {
			d := list[0]
			deleted[h] = list[1:]
			cs[i].x = 'R'
			cs[i].orig = cs[d].path
			cs[d].x = 0
		}
	}
}
