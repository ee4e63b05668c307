package vcs

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// DiffRequest is diff's arguments.
type DiffRequest struct {
	Staged bool     `json:"staged,omitempty" doc:"diff the index against HEAD (what a commit would record) instead of the worktree against the index; default false"`
	Paths  []string `json:"paths,omitempty" doc:"only these paths, relative to the workspace root; default: every changed file"`
}

// DiffFile is one file of a diff; scripts rely on its field names.
type DiffFile struct {
	Path      string `json:"path"`
	Status    string `json:"status"` // modified, added, deleted, renamed, typechange
	OrigPath  string `json:"origPath,omitempty"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
	Binary    bool   `json:"binary,omitempty"`
}

// DiffData is vcs.diff's data.
type DiffData struct {
	Staged    bool       `json:"staged"`
	Files     []DiffFile `json:"files"`
	Diff      string     `json:"diff"`
	Bytes     int        `json:"bytes"`
	Truncated bool       `json:"truncated,omitempty"`
}

// side is one version of a file in a diff: a blob, a worktree file, or
// nothing.
type side struct {
	path string
	mode uint32 // 0: absent
	hash plumbing.Hash
	file string // worktree file to read instead of the blob
}

type filePair struct {
	a, b   side
	status string
}

// Diff is `git diff` (worktree against the index) or `git diff --staged`.
func Diff(ctx context.Context, ws *workspace.Workspace, req *DiffRequest) (envelope.Envelope, error) {
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	filters, err := rp.filters(req.Paths)
	if err != nil {
		return envelope.Envelope{}, err
	}
	_, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	changes, s, err := rp.status(head, filters, false, false)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var headTree plumbing.Hash
	if !head.IsZero() {
		if c, err := rp.commit(head); err == nil {
			headTree = c.TreeHash
		}
	}
	var pairs []filePair
	for _, c := range changes {
		if req.Staged {
			if c.x == ' ' || c.x == '?' || c.x == '!' || c.x == 'U' {
				continue
			}
			p := filePair{}
			var idxSide side
			if i, ok := s.tracked[c.path]; ok && c.x != 'D' {
				e := &s.idx.entries[i]
				idxSide = side{path: c.path, mode: e.mode, hash: e.hash}
			}
			orig := c.path
			if c.x == 'R' {
				orig = c.orig
			}
			var headSide side
			if te, ok := treeEntry(rp, headTree, orig); ok && c.x != 'A' {
				headSide = side{path: orig, mode: uint32(te.Mode), hash: te.Hash}
			}
			p.a, p.b = headSide, idxSide
			pairs = append(pairs, p)
			continue
		}
		i, ok := s.tracked[c.path]
		if !ok || c.y == ' ' || c.y == '?' || c.y == '!' {
			continue
		}
		e := &s.idx.entries[i]
		if e.stage != 0 {
			continue
		}
		p := filePair{a: side{path: c.path, mode: e.mode, hash: e.hash}}
		if c.y != 'D' {
			mode := uint32(modeFile)
			if fi, err := os.Lstat(filepath.Join(rp.top, c.path)); err == nil {
				switch {
				case fi.Mode()&os.ModeSymlink != 0:
					mode = modeSymlink
				case fi.IsDir():
					mode = modeGitlink
				case fi.Mode()&0o100 != 0:
					mode = modeExec
				}
			}
			h := s.wtHash[i]
			if mode == modeGitlink {
				h, _ = submoduleHead(filepath.Join(rp.top, c.path))
			} else if h.IsZero() {
				h, _ = hashFile(filepath.Join(rp.top, c.path), mode == modeSymlink)
			}
			p.b = side{path: c.path, mode: mode, hash: h, file: filepath.Join(rp.top, c.path)}
		}
		pairs = append(pairs, p)
	}
	text, files, err := rp.renderDiff(pairs)
	if err != nil {
		return envelope.Envelope{}, err
	}
	what := "worktree against the index"
	if req.Staged {
		what = "index against HEAD"
	}
	return diffEnvelope(ws, rp, text, files, req.Staged, what)
}

func diffEnvelope(ws *workspace.Workspace, rp *repo, text []byte, files []DiffFile, staged bool, what string) (envelope.Envelope, error) {
	d := &DiffData{Staged: staged, Files: files, Bytes: len(text), Diff: string(text)}
	if d.Files == nil {
		d.Files = []DiffFile{}
	}
	adds, dels := 0, 0
	for _, f := range files {
		adds += f.Additions
		dels += f.Deletions
	}
	summary := fmt.Sprintf("Diff of the %s: %s, +%d -%d.", what, plural(len(files), "file", "files"), adds, dels)
	if len(files) == 0 {
		summary = fmt.Sprintf("No differences in the %s.", what)
	}
	env := envelope.New("", summary, d)
	if max := ws.Settings.MaxToolResultChars; len(text) > max {
		art, err := ws.Store.WriteArtifact("diff", "vcs.diff", text, "the whole diff of the "+what)
		if err != nil {
			return envelope.Envelope{}, err
		}
		d.Diff, d.Truncated = envelope.Clip(string(text), max), true
		env.Artifacts = append(env.Artifacts, art)
		env.Summary += fmt.Sprintf(" The diff is %d bytes; the first %d are inline and the whole diff is %s.", len(text), max, art.Path)
	}
	env.Omit("data.diff", "data.files")
	env.Fact("vcs diff (%s): %s, +%d -%d", what, plural(len(files), "file", "files"), adds, dels)
	return env, nil
}

// renderDiff writes git's patch text for the pairs, in path order.
func (rp *repo) renderDiff(pairs []filePair) ([]byte, []DiffFile, error) {
	sort.SliceStable(pairs, func(i, j int) bool { return pairPath(pairs[i]) < pairPath(pairs[j]) })
	abbrev := rp.abbrevLen()
	var w bytes.Buffer
	var files []DiffFile
	for _, p := range pairs {
		if rp.hidden(p.a) || rp.hidden(p.b) {
			continue // never print what the jail would not let inspect read
		}
		f, err := rp.writePatch(&w, p, abbrev)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			if wp, ok := rp.toWS(f.Path); ok {
				f.Path = wp
			}
			if f.OrigPath != "" {
				f.OrigPath, _ = rp.toWS(f.OrigPath)
			}
			files = append(files, *f)
		}
	}
	return w.Bytes(), files, nil
}

// hidden reports whether a side's content may not be shown: a path
// outside the workspace (a workspace below the repository's top) or on
// denyPaths.
func (rp *repo) hidden(s side) bool {
	if s.mode == 0 {
		return false
	}
	wp, ok := rp.toWS(s.path)
	return !ok || rp.ws.Jail.Denied(wp)
}

func pairPath(p filePair) string {
	if p.b.mode != 0 {
		return p.b.path
	}
	return p.a.path
}

func (rp *repo) content(s side) ([]byte, error) {
	if s.mode == 0 || s.mode == modeGitlink {
		if s.mode == modeGitlink {
			return []byte("Subproject commit " + s.hash.String() + "\n"), nil
		}
		return nil, nil
	}
	if s.file != "" {
		if s.mode == modeSymlink {
			t, err := os.Readlink(s.file)
			return []byte(t), err
		}
		return os.ReadFile(s.file)
	}
	return rp.blob(s.hash)
}

func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// writePatch writes one file's "diff --git" section as git does.
func (rp *repo) writePatch(w *bytes.Buffer, p filePair, abbrev int) (*DiffFile, error) {
	a, b := p.a, p.b
	pa, pb := a.path, b.path
	if a.mode == 0 {
		pa = pb
	}
	if b.mode == 0 {
		pb = pa
	}
	f := &DiffFile{Path: pb, Status: "modified"}
	ca, err := rp.content(a)
	if err != nil {
		return nil, vcsErr("reading "+pa, err)
	}
	cb, err := rp.content(b)
	if err != nil {
		return nil, vcsErr("reading "+pb, err)
	}
	fmt.Fprintf(w, "diff --git a/%s b/%s\n", pa, pb)
	ha, hb := a.hash, b.hash
	switch {
	case a.mode == 0:
		f.Status = "added"
		fmt.Fprintf(w, "new file mode %06o\n", b.mode)
		ha = plumbing.ZeroHash
	case b.mode == 0:
		f.Status = "deleted"
		fmt.Fprintf(w, "deleted file mode %06o\n", a.mode)
		hb = plumbing.ZeroHash
	default:
		if a.mode != b.mode {
			if typeOf(a.mode) != typeOf(b.mode) {
				f.Status = "typechange"
			}
			fmt.Fprintf(w, "old mode %06o\nnew mode %06o\n", a.mode, b.mode)
		}
		if pa != pb {
			f.Status, f.OrigPath = "renamed", pa
			sim := 100
			if ha != hb {
				sim = similarity(ca, cb)
			}
			fmt.Fprintf(w, "similarity index %d%%\nrename from %s\nrename to %s\n", sim, pa, pb)
		}
	}
	if ha == hb && a.mode != 0 && b.mode != 0 {
		return f, nil // mode change or pure rename: no content lines
	}
	fmt.Fprintf(w, "index %s..%s", ha.String()[:abbrev], hb.String()[:abbrev])
	if a.mode == b.mode {
		fmt.Fprintf(w, " %06o", a.mode)
	}
	w.WriteByte('\n')
	if isBinary(ca) || isBinary(cb) {
		f.Binary = true
		nameA, nameB := "a/"+pa, "b/"+pb
		if a.mode == 0 {
			nameA = "/dev/null"
		}
		if b.mode == 0 {
			nameB = "/dev/null"
		}
		fmt.Fprintf(w, "Binary files %s and %s differ\n", nameA, nameB)
		return f, nil
	}
	if a.mode == 0 {
		w.WriteString("--- /dev/null\n")
	} else {
		fmt.Fprintf(w, "--- a/%s\n", pa)
	}
	if b.mode == 0 {
		w.WriteString("+++ /dev/null\n")
	} else {
		fmt.Fprintf(w, "+++ b/%s\n", pb)
	}
	f.Additions, f.Deletions = newLineDiff(ca, cb).unified(w)
	return f, nil
}

// similarity is a rough share of lines kept, for a rename's header.
func similarity(a, b []byte) int {
	d := newLineDiff(a, b)
	kept := 0
	for i := range d.a {
		if !d.rchA[i+1] {
			kept += len(d.a[i])
		}
	}
	total := max(len(a), len(b))
	if total == 0 {
		return 100
	}
	return kept * 100 / total
}

// abbrevLen is git's automatic abbreviation length: from the number of
// packed objects, at least 7 hex digits.
func (rp *repo) abbrevLen() int {
	if v := loadConfig(rp.commonDir()).get("core", "", "abbrev"); v != "" && v != "auto" {
		var n int
		if _, err := fmt.Sscanf(v, "%d", &n); err == nil && n >= 4 && n <= 40 {
			return n
		}
	}
	var count uint64
	packs, _ := filepath.Glob(filepath.Join(rp.commonDir(), "objects", "pack", "*.idx"))
	for _, p := range packs {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		var hdr [8 + 256*4]byte
		if _, err := io.ReadFull(f, hdr[:]); err == nil && string(hdr[:4]) == "\xfftOc" {
			count += uint64(binary.BigEndian.Uint32(hdr[8+255*4:]))
		}
		f.Close()
	}
	bits := 0
	for c := count; c > 0; c >>= 1 {
		bits++
	}
	n := (bits + 1) / 2
	if n < 7 {
		n = 7
	}
	return n
}

// commonDir is where objects and refs live (a linked worktree's gitdir
// points there through "commondir").
func (rp *repo) commonDir() string {
	if raw, err := os.ReadFile(filepath.Join(rp.gitDir, "commondir")); err == nil {
		d := strings.TrimSpace(string(raw))
		if !filepath.IsAbs(d) {
			d = filepath.Join(rp.gitDir, d)
		}
		return d
	}
	return rp.gitDir
}
