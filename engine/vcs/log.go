package vcs

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// LogRequest is log's arguments.
type LogRequest struct {
	Limit int      `json:"limit,omitempty" doc:"most commits returned, newest first, 1 to 1000; default 20"`
	Paths []string `json:"paths,omitempty" doc:"only commits that change these paths, relative to the workspace root"`
	Rev   string   `json:"rev,omitempty" doc:"the commit, branch or tag to start from; default HEAD"`
}

// CommitInfo is one commit of vcs.log; scripts rely on its field names.
type CommitInfo struct {
	Hash    string   `json:"hash"`
	Author  string   `json:"author"`
	Email   string   `json:"email"`
	Date    string   `json:"date"` // author date, RFC 3339
	Subject string   `json:"subject"`
	Parents []string `json:"parents,omitempty"`
}

// LogData is vcs.log's data.
type LogData struct {
	Commits []CommitInfo `json:"commits"`
	More    bool         `json:"more"`
}

// Log lists commits newest first (by commit date, as git log), with git's
// default history simplification when paths are given: a commit is shown
// when it differs from its parents at those paths, and a merge that keeps
// one parent's version follows only that parent.
func Log(ctx context.Context, ws *workspace.Workspace, req *LogRequest) (envelope.Envelope, error) {
	limit, err := envelope.Limit(req.Limit, 20, 1000)
	if err != nil {
		return envelope.Envelope{}, err
	}
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var paths []string
	for _, p := range req.Paths {
		rel, err := rp.jailPath(p)
		if err != nil {
			return envelope.Envelope{}, err
		}
		paths = append(paths, rel)
	}
	start, err := rp.resolveRev(req.Rev)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &LogData{Commits: []CommitInfo{}}
	if start.IsZero() {
		env := envelope.New("", "No commits yet.", d)
		return env, nil
	}
	w := rp.newLogWalk(paths)
	if err := w.walk(ctx, start, limit, d); err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("%s from %s", plural(len(d.Commits), "commit", "commits"), short(start))
	if len(paths) > 0 {
		summary += " touching " + strings.Join(req.Paths, ", ")
	}
	if d.More {
		summary += fmt.Sprintf("; more exist (raise --limit above %d)", limit)
	}
	env := envelope.New("", summary+".", d)
	env.Omit("data.commits")
	for i, c := range d.Commits {
		if i == 5 {
			break
		}
		env.Fact("commit %s %s", c.Hash[:12], envelope.Clip(c.Subject, 80))
	}
	return env, nil
}

func info(c *object.Commit) CommitInfo {
	subject, _, _ := strings.Cut(strings.TrimLeft(c.Message, "\n"), "\n")
	ci := CommitInfo{Hash: c.Hash.String(), Author: c.Author.Name, Email: c.Author.Email,
		Date: c.Author.When.Format(time.RFC3339), Subject: strings.TrimSpace(subject)}
	for _, p := range c.ParentHashes {
		ci.Parents = append(ci.Parents, p.String())
	}
	return ci
}

// resolveRev turns a revision (branch, tag, full or abbreviated hash,
// HEAD~N) into a commit hash; "" is HEAD (zero on an unborn branch).
func (rp *repo) resolveRev(rev string) (plumbing.Hash, error) {
	if rev == "" || rev == "HEAD" {
		_, h, err := rp.head()
		return h, err
	}
	if strings.HasPrefix(rev, "-") {
		return plumbing.ZeroHash, envelope.Errorf(envelope.InvalidInput, "revision %q starts with '-'; name a branch, tag or commit", rev).With("rev", rev)
	}
	h, err := rp.r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return plumbing.ZeroHash, envelope.Errorf(envelope.NotFound, "revision %q is not a branch, tag or commit of this repository; list them with `aw vcs branch` or `aw vcs log`", rev).With("rev", rev)
	}
	return *h, nil
}

// ShowRequest is show's arguments.
type ShowRequest struct {
	Rev string `json:"rev" doc:"the commit to show: a hash (a unique prefix works), branch, tag or HEAD~N"`
}

// ShowData is vcs.show's data: the commit and its diff against its first
// parent.
type ShowData struct {
	CommitInfo
	Committer      string     `json:"committer"`
	CommitterEmail string     `json:"committerEmail"`
	CommitDate     string     `json:"commitDate"`
	Message        string     `json:"message"`
	Files          []DiffFile `json:"files"`
	Diff           string     `json:"diff"`
	Truncated      bool       `json:"truncated,omitempty"`
}

// Show is one commit with its patch.
func Show(ctx context.Context, ws *workspace.Workspace, req *ShowRequest) (envelope.Envelope, error) {
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	rev := req.Rev
	if rev == "" {
		rev = "HEAD"
	}
	h, err := rp.resolveRev(rev)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if h.IsZero() {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "the repository has no commits yet; commit first with `aw vcs commit -m MSG`")
	}
	c, err := rp.commit(h)
	if err != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "%s is not a commit (%v); name a commit, branch or tag", rev, err).With("rev", rev)
	}
	var parentTree plumbing.Hash
	if len(c.ParentHashes) > 0 {
		if pc, err := rp.commit(c.ParentHashes[0]); err == nil {
			parentTree = pc.TreeHash
		}
	}
	var pairs []filePair
	if err := rp.treeDiff(parentTree, c.TreeHash, "", &pairs); err != nil {
		return envelope.Envelope{}, err
	}
	pairs = renamePairs(pairs)
	text, files, err := rp.renderDiff(pairs)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &ShowData{CommitInfo: info(c), Committer: c.Committer.Name, CommitterEmail: c.Committer.Email,
		CommitDate: c.Committer.When.Format(time.RFC3339), Message: c.Message, Files: files, Diff: string(text)}
	if d.Files == nil {
		d.Files = []DiffFile{}
	}
	env := envelope.New("", fmt.Sprintf("Commit %s by %s: %s (%s).", short(h), c.Author.Name, envelope.Clip(d.Subject, 100), plural(len(files), "file", "files")), d)
	if max := ws.Settings.MaxToolResultChars; len(text) > max {
		art, err := ws.Store.WriteArtifact("diff", "show-"+h.String()[:12]+".diff", text, "the whole diff of commit "+h.String())
		if err != nil {
			return envelope.Envelope{}, err
		}
		d.Diff, d.Truncated = envelope.Clip(string(text), max), true
		env.Artifacts = append(env.Artifacts, art)
		env.Summary += fmt.Sprintf(" The diff is %d bytes; the whole diff is %s.", len(text), art.Path)
	}
	env.Omit("data.diff", "data.files", "data.message")
	env.Fact("commit %s %s", h.String()[:12], envelope.Clip(d.Subject, 80))
	return env, nil
}

// treeDiff collects the file pairs that differ between two trees,
// skipping identical subtrees by hash.
func (rp *repo) treeDiff(a, b plumbing.Hash, dir string, out *[]filePair) error {
	if a == b {
		return nil
	}
	load := func(h plumbing.Hash) (map[string]object.TreeEntry, []string, error) {
		m := map[string]object.TreeEntry{}
		var names []string
		if h.IsZero() {
			return m, nil, nil
		}
		entries, err := rp.tree(h)
		if err != nil {
			return nil, nil, vcsErr("reading tree "+h.String(), err)
		}
		for _, te := range entries {
			m[te.Name] = te
			names = append(names, te.Name)
		}
		return m, names, nil
	}
	ma, na, err := load(a)
	if err != nil {
		return err
	}
	mb, nb, err := load(b)
	if err != nil {
		return err
	}
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	names := append(na, nb...)
	done := map[string]bool{}
	for _, name := range names {
		if done[name] {
			continue
		}
		done[name] = true
		ea, oka := ma[name]
		eb, okb := mb[name]
		p := prefix + name
		dirA, dirB := oka && ea.Mode == modeDir, okb && eb.Mode == modeDir
		var ta, tb plumbing.Hash
		if dirA {
			ta = ea.Hash
		}
		if dirB {
			tb = eb.Hash
		}
		if dirA || dirB {
			if err := rp.treeDiff(ta, tb, p, out); err != nil {
				return err
			}
		}
		var sa, sb side
		if oka && !dirA {
			sa = side{path: p, mode: uint32(ea.Mode), hash: ea.Hash}
		}
		if okb && !dirB {
			sb = side{path: p, mode: uint32(eb.Mode), hash: eb.Hash}
		}
		if sa.mode == 0 && sb.mode == 0 {
			continue
		}
		if sa.mode != 0 && sb.mode != 0 && sa.hash == sb.hash && sa.mode == sb.mode {
			continue
		}
		if sa.mode != 0 && sb.mode != 0 && typeOf(sa.mode) != typeOf(sb.mode) {
			// git shows a type change as a deletion and an addition.
			*out = append(*out, filePair{a: sa}, filePair{b: sb})
			continue
		}
		*out = append(*out, filePair{a: sa, b: sb})
	}
	return nil
}

// renamePairs joins a deleted and an added file with the same blob into a
// rename, as git's default rename detection does for exact copies.
func renamePairs(pairs []filePair) []filePair {
	deleted := map[plumbing.Hash][]int{}
	for i, p := range pairs {
		if p.b.mode == 0 && p.a.mode != 0 {
			deleted[p.a.hash] = append(deleted[p.a.hash], i)
		}
	}
	if len(deleted) == 0 {
		return pairs
	}
	drop := map[int]bool{}
	for i := range pairs {
		p := &pairs[i]
		if p.a.mode != 0 || p.b.mode == 0 {
			continue
		}
		if list := deleted[p.b.hash]; len(list) > 0 {
			d := list[0]
			deleted[p.b.hash] = list[1:]
			p.a = pairs[d].a
			drop[d] = true
		}
	}
	out := pairs[:0]
	for i, p := range pairs {
		if !drop[i] {
			out = append(out, p)
		}
	}
	return out
}
