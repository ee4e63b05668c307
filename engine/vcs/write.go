package vcs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"

	awconfig "github.com/agentic-workspace/aw/engine/config"
	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/gate"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// AddRequest is add's arguments.
type AddRequest struct {
	Paths []string `json:"paths" doc:"the paths to stage, relative to the workspace root, at least one"`
}

// CommitRequest is commit's arguments.
type CommitRequest struct {
	Message string `json:"message" doc:"the commit message: a subject line, then optionally a blank line and a body"`
}

// CheckoutRequest is checkout's arguments.
type CheckoutRequest struct {
	Rev string `json:"rev" doc:"the branch to switch to, or a commit to detach at; uncommitted changes that would be lost are refused"`
}

// BranchRequest is branch's arguments: no flag lists.
type BranchRequest struct {
	Name   string `json:"name,omitempty" doc:"the branch to create or delete; without create or delete the branches are listed"`
	Create bool   `json:"create,omitempty" doc:"create the branch name (does not switch to it); default false"`
	Delete bool   `json:"delete,omitempty" doc:"delete the branch name (destructive); default false"`
	Start  string `json:"start,omitempty" doc:"with create: the commit the new branch starts at; default HEAD"`
}

// PushRequest is push's arguments.
type PushRequest struct {
	Remote string `json:"remote,omitempty" doc:"the remote to push the current branch to; default origin"`
	Force  bool   `json:"force,omitempty" doc:"overwrite the remote branch, sent as --force-with-lease (destructive); default false"`
}

// InitRequest is init's arguments.
type InitRequest struct {
	Branch string `json:"branch,omitempty" doc:"the initial branch name; default: git's init.defaultBranch, else main"`
}

// gated asks the gate whether a repository write may run (kind vcs).
func gated(ws *workspace.Workspace, title string, args map[string]any, bind any, destructive bool, refusal string) (gate.Decision, error) {
	return gate.Check(ws, gate.Operation{
		Kind:        "vcs",
		Title:       title,
		Hash:        gate.Hash([]any{args, bind}),
		Destructive: destructive,
		Refusal:     refusal,
		Resume:      gate.Resume{Tool: "workspace_vcs", Arguments: args},
		Review:      reviewText(args),
	})
}

func reviewText(args map[string]any) string {
	var b strings.Builder
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %v\n", k, args[k])
	}
	return b.String()
}

func needWrite(ws *workspace.Workspace, op string) error {
	if !ws.Allows(workspace.TierWrite) {
		return envelope.Errorf(envelope.ToolDisabled, "%s needs tier write but this call is capped at --tier %s; run it without that cap", op, ws.Tier).With("tier", "write")
	}
	return nil
}

// Add stages paths (files or directories; deletions too) in the index.
func Add(ctx context.Context, ws *workspace.Workspace, req *AddRequest) (envelope.Envelope, error) {
	if len(req.Paths) == 0 {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "add needs at least one path; use . for everything")
	}
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	var filters, shown []string
	for _, p := range req.Paths {
		rel, err := rp.jailPath(p)
		if err != nil {
			return envelope.Envelope{}, err
		}
		filters = append(filters, rel)
		w, _ := rp.toWS(rel)
		if w == "" {
			w = "."
		}
		shown = append(shown, w)
	}
	_, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	changes, s, err := rp.status(head, filters, true, false)
	if err != nil {
		return envelope.Envelope{}, err
	}
	// Every path must name something: tracked, or present and not ignored.
	for i, f := range filters {
		if f == "" {
			continue
		}
		lo, hi := s.idx.under(f)
		if _, ok := s.tracked[f]; ok || lo < hi {
			continue
		}
		if _, err := os.Lstat(filepath.Join(rp.top, f)); err != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "%s matches no file, tracked or not; check the path with `aw vcs status`", shown[i]).With("path", shown[i])
		}
		found := false
		for _, c := range changes {
			if c.path == f || strings.HasPrefix(c.path, f+"/") {
				found = true
				break
			}
		}
		if !found {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "%s is ignored by .gitignore (or holds only ignored files); aw does not force-add ignored paths", shown[i]).With("path", shown[i])
		}
	}
	var todo []change
	for _, c := range changes {
		if c.y == ' ' || c.y == '!' {
			continue
		}
		wsPath, ok := rp.toWS(strings.TrimSuffix(c.path, "/"))
		if !ok || ws.Jail.Denied(wsPath) {
			continue // denyPaths are never staged
		}
		todo = append(todo, c)
	}
	args := map[string]any{"action": "add", "paths": shown}
	d, err := gated(ws, "Stage "+strings.Join(shown, ", "), args, nil, false, "")
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	if err := rp.stage(todo); err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	var staged []string
	for _, c := range todo {
		p, _ := rp.toWS(c.path)
		staged = append(staged, p)
	}
	data := map[string]any{"paths": shown, "staged": nonNil(staged)}
	env := envelope.New("", fmt.Sprintf("Staged %s under %s.", plural(len(staged), "change", "changes"), strings.Join(shown, ", ")), data)
	env.Fact("staged %s", plural(len(staged), "change", "changes"))
	return env, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stage writes the changes into the index through go-git: blobs into the
// object storage, entries (with stat data) into the index, and the
// cache-tree of every touched directory invalidated.
func (rp *repo) stage(todo []change) error {
	if len(todo) == 0 {
		return nil
	}
	idx, err := rp.r.Storer.Index()
	if err != nil {
		return vcsErr("reading the index", err)
	}
	pos := map[string]int{}
	for i, e := range idx.Entries {
		pos[e.Name] = i
	}
	remove := map[string]bool{}
	var touched []string
	for _, c := range todo {
		p := strings.TrimSuffix(c.path, "/")
		touched = append(touched, p)
		full := filepath.Join(rp.top, p)
		fi, err := os.Lstat(full)
		if err != nil || (fi.IsDir() && c.y == 'D') {
			remove[p] = true
			continue
		}
		var content []byte
		mode := filemode.Regular
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(full)
			if err != nil {
				return vcsErr("reading "+p, err)
			}
			content, mode = []byte(t), filemode.Symlink
		case fi.IsDir():
			h, ok := submoduleHead(full)
			if !ok {
				continue
			}
			rp.setEntry(idx, pos, p, h, filemode.Submodule, fi)
			continue
		default:
			content, err = os.ReadFile(full)
			if err != nil {
				return vcsErr("reading "+p, err)
			}
			if fi.Mode()&0o100 != 0 {
				mode = filemode.Executable
			}
		}
		obj := rp.r.Storer.NewEncodedObject()
		obj.SetType(plumbing.BlobObject)
		obj.SetSize(int64(len(content)))
		w, err := obj.Writer()
		if err != nil {
			return vcsErr("storing "+p, err)
		}
		w.Write(content)
		w.Close()
		h, err := rp.r.Storer.SetEncodedObject(obj)
		if err != nil {
			return vcsErr("storing "+p, err)
		}
		rp.setEntry(idx, pos, p, h, mode, fi)
	}
	if len(remove) > 0 {
		kept := idx.Entries[:0]
		for _, e := range idx.Entries {
			if !remove[e.Name] {
				kept = append(kept, e)
			}
		}
		idx.Entries = kept
	}
	sort.Slice(idx.Entries, func(i, j int) bool {
		if idx.Entries[i].Name != idx.Entries[j].Name {
			return idx.Entries[i].Name < idx.Entries[j].Name
		}
		return idx.Entries[i].Stage < idx.Entries[j].Stage
	})
	invalidateCacheTree(idx, touched)
	if err := rp.r.Storer.SetIndex(idx); err != nil {
		return vcsErr("writing the index", err)
	}
	return nil
}

func (rp *repo) setEntry(idx *index.Index, pos map[string]int, p string, h plumbing.Hash, mode filemode.FileMode, fi os.FileInfo) {
	e := &index.Entry{Name: p}
	if i, ok := pos[p]; ok {
		e = idx.Entries[i]
		if e.Stage != 0 {
			e.Stage = 0
		}
	} else {
		idx.Entries = append(idx.Entries, e)
		pos[p] = len(idx.Entries) - 1
	}
	// Resolving a conflict drops the path's other stages.
	for i, o := range idx.Entries {
		if o.Name == p && o != e && o.Stage != 0 {
			idx.Entries[i] = &index.Entry{Name: "\x00drop"}
		}
	}
	e.Hash, e.Mode = h, mode
	e.ModifiedAt = fi.ModTime()
	e.Size = uint32(fi.Size())
	fillStat(e, fi)
	e.IntentToAdd = false
}

// invalidateCacheTree marks the cache-tree of every directory holding a
// touched path as invalid (git's cache_tree_invalidate_path).
func invalidateCacheTree(idx *index.Index, paths []string) {
	clean := idx.Entries[:0]
	for _, e := range idx.Entries {
		if e.Name != "\x00drop" {
			clean = append(clean, e)
		}
	}
	idx.Entries = clean
	if idx.Cache == nil || len(idx.Cache.Entries) == 0 {
		return
	}
	dirs := map[string]bool{"": true}
	for _, p := range paths {
		for {
			k := strings.LastIndexByte(p, '/')
			if k < 0 {
				break
			}
			p = p[:k]
			dirs[p] = true
		}
	}
	i := 0
	var walk func(dir string)
	walk = func(dir string) {
		if i >= len(idx.Cache.Entries) {
			return
		}
		te := &idx.Cache.Entries[i]
		i++
		path := te.Path
		if dir != "" {
			path = dir + "/" + te.Path
		}
		if dirs[path] {
			te.Entries = -1
			te.Hash = plumbing.ZeroHash
		}
		for k := 0; k < te.Trees; k++ {
			walk(path)
		}
	}
	walk("")
}

// Commit records the index as a new commit on HEAD.
func Commit(ctx context.Context, ws *workspace.Workspace, req *CommitRequest) (envelope.Envelope, error) {
	msg := strings.TrimSpace(req.Message)
	if msg == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "commit needs a message: pass -m MSG").With("field", "message")
	}
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	branch, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	author, committer, err := identity(rp.commonDir())
	if err != nil {
		return envelope.Envelope{}, err
	}
	idx, err := readIndex(rp.gitDir)
	if err != nil {
		return envelope.Envelope{}, vcsErr("reading the index", err)
	}
	s := newScan(rp, idx, nil, false, false)
	var headTree plumbing.Hash
	if !head.IsZero() {
		if c, err := rp.commit(head); err == nil {
			headTree = c.TreeHash
		}
	}
	for _, e := range idx.entries {
		if e.stage != 0 {
			return envelope.Envelope{}, envelope.Errorf(envelope.VCSError, "%s has unresolved conflicts; edit it, stage it with `aw vcs add %s`, then commit", e.name, e.name).With("path", e.name)
		}
	}
	staged, err := s.staged(headTree)
	if err != nil {
		return envelope.Envelope{}, vcsErr("comparing HEAD with the index", err)
	}
	if len(staged) == 0 && !(head.IsZero() && len(idx.entries) > 0) {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "nothing to commit: the index matches HEAD; stage changes first with `aw vcs add PATH`")
	}
	args := map[string]any{"action": "commit", "message": req.Message}
	d, err := gated(ws, "Commit: "+envelope.Clip(firstLine(msg), 60), args, []string{head.String(), idx.checksum}, false, "")
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	wt, err := rp.r.Worktree()
	if err != nil {
		return envelope.Envelope{}, vcsErr("opening the worktree", err)
	}
	h, err := wt.Commit(req.Message, &git.CommitOptions{Author: author, Committer: committer, AllowEmptyCommits: true})
	if err != nil {
		return envelope.Envelope{}, vcsErr("committing", err)
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	where := branch
	if where == "" {
		where = "detached HEAD"
	}
	data := map[string]any{"hash": h.String(), "branch": branch, "author": author.Name, "email": author.Email,
		"subject": firstLine(msg), "files": len(staged)}
	env := envelope.New("", fmt.Sprintf("Committed %s on %s: %s (%s).", short(h), where, envelope.Clip(firstLine(msg), 80), plural(len(staged), "file", "files")), data)
	env.Retention.Importance = envelope.High
	env.Fact("commit %s on %s: %s", h.String()[:12], where, envelope.Clip(firstLine(msg), 80))
	return env, nil
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// identity reads author and committer from GIT_AUTHOR_*/GIT_COMMITTER_*,
// else user.name/user.email of the repository's config, else the user's
// global git config.
func identity(gitDir string) (*object.Signature, *object.Signature, error) {
	cfg := loadConfig(gitDir)
	name, email := cfg.get("user", "", "name"), cfg.get("user", "", "email")
	now := time.Now()
	sig := func(prefix string) (*object.Signature, error) {
		n, e := os.Getenv(prefix+"_NAME"), os.Getenv(prefix+"_EMAIL")
		if n == "" {
			n = name
		}
		if e == "" {
			e = email
		}
		if n == "" || e == "" {
			return nil, envelope.Errorf(envelope.InvalidInput,
				"no commit identity: set GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (and GIT_COMMITTER_*) in the environment, or user.name and user.email in the repository's .git/config or your ~/.gitconfig (for example `git config --global user.name \"Your Name\"` and `git config --global user.email you@example.com`)")
		}
		when := now
		if v := os.Getenv(prefix + "_DATE"); v != "" {
			if t, ok := parseGitDate(v); ok {
				when = t
			}
		}
		return &object.Signature{Name: n, Email: e, When: when}, nil
	}
	a, err := sig("GIT_AUTHOR")
	if err != nil {
		return nil, nil, err
	}
	c, err := sig("GIT_COMMITTER")
	if err != nil {
		return nil, nil, err
	}
	return a, c, nil
}

// parseGitDate reads the GIT_*_DATE forms aw accepts: RFC 3339, RFC 2822,
// and git's internal "@unix +zone" / "unix +zone".
func parseGitDate(v string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339, time.RFC1123Z, "Mon, 2 Jan 2006 15:04:05 -0700", "2006-01-02 15:04:05 -0700"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, true
		}
	}
	var sec int64
	var zone string
	if n, _ := fmt.Sscanf(strings.TrimPrefix(v, "@"), "%d %s", &sec, &zone); n >= 1 {
		t := time.Unix(sec, 0)
		if z, err := time.Parse("-0700", zone); err == nil {
			t = t.In(z.Location())
		}
		return t, true
	}
	return time.Time{}, false
}

// Checkout switches the worktree to a branch or commit. It is destructive
// (it replaces files), and it refuses to clobber uncommitted changes.
func Checkout(ctx context.Context, ws *workspace.Workspace, req *CheckoutRequest) (envelope.Envelope, error) {
	if req.Rev == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "checkout needs a branch or commit: aw vcs checkout REV").With("field", "rev")
	}
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	target, err := rp.resolveRev(req.Rev)
	if err != nil {
		return envelope.Envelope{}, err
	}
	branchRef := plumbing.NewBranchReferenceName(req.Rev)
	_, berr := rp.r.Storer.Reference(branchRef)
	isBranch := berr == nil
	args := map[string]any{"action": "checkout", "rev": req.Rev}
	_, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	refusal := fmt.Sprintf("checkout replaces the worktree's files with those of %s; to start a new line of work without touching any file, use branch with create (`aw vcs branch NAME --create`)", req.Rev)
	d, err := gated(ws, "Checkout "+req.Rev, args, head.String(), true, refusal)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	// Refuse to clobber: no tracked change, and no untracked file where
	// the target has one.
	changes, _, err := rp.status(head, nil, true, false)
	if err != nil {
		return envelope.Envelope{}, err
	}
	tc, err := rp.commit(target)
	if err != nil {
		return envelope.Envelope{}, vcsErr("reading "+req.Rev, err)
	}
	var dirty []string
	for _, c := range changes {
		if c.x == '?' {
			if _, ok := treeEntry(rp, tc.TreeHash, strings.TrimSuffix(c.path, "/")); ok {
				dirty = append(dirty, c.path+" (untracked, would be overwritten)")
			}
			continue
		}
		dirty = append(dirty, c.path)
	}
	if len(dirty) > 0 {
		if len(dirty) > 20 {
			dirty = append(dirty[:20], fmt.Sprintf("… %d more", len(dirty)-20))
		}
		return envelope.Envelope{}, envelope.Errorf(envelope.VCSError,
			"checkout of %s would overwrite uncommitted changes in %s; commit them (`aw vcs add` then `aw vcs commit`) or undo them first, then check out again", req.Rev, strings.Join(dirty, ", ")).With("paths", dirty)
	}
	if err := rp.switchTo(head, tc, isBranch, branchRef); err != nil {
		return envelope.Envelope{}, err
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	data := map[string]any{"rev": req.Rev, "head": target.String(), "detached": !isBranch}
	summary := fmt.Sprintf("Checked out branch %s at %s.", req.Rev, short(target))
	if !isBranch {
		summary = fmt.Sprintf("Checked out %s as a detached HEAD at %s.", req.Rev, short(target))
	}
	env := envelope.New("", summary, data)
	env.Retention.Importance = envelope.High
	env.Fact("HEAD now %s (%s)", short(target), req.Rev)
	return env, nil
}

// BranchInfo is one branch of branch's listing.
type BranchInfo struct {
	Name    string `json:"name"`
	Hash    string `json:"hash"`
	Current bool   `json:"current"`
}

// MaxBranchBytes bounds a branch name: each name is a file under
// .git/refs/heads, and a longer one fails there (or in a remote) instead.
const MaxBranchBytes = 200

// branchRef checks a branch name as git does, refusing option look-alikes
// and names too long to be a file; field names the argument for details.
func branchRef(name, field string) (plumbing.ReferenceName, error) {
	ref := plumbing.NewBranchReferenceName(name)
	if len(name) > MaxBranchBytes {
		return "", envelope.Errorf(envelope.InvalidInput, "branch name of %d bytes; the limit is %d", len(name), MaxBranchBytes).With(field, name)
	}
	if err := ref.Validate(); err != nil || strings.HasPrefix(name, "-") {
		return "", envelope.Errorf(envelope.InvalidInput, "%q is not a valid branch name; use letters, digits, '-', '_', '.' and '/'", name).With(field, name)
	}
	return ref, nil
}

// Branch lists branches, or creates or deletes one.
func Branch(ctx context.Context, ws *workspace.Workspace, req *BranchRequest) (envelope.Envelope, error) {
	if req.Create && req.Delete {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "branch takes --create or --delete, not both")
	}
	if (req.Create || req.Delete) && req.Name == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "branch --create/--delete needs a NAME").With("field", "name")
	}
	if !req.Create && !req.Delete && (req.Name != "" || req.Start != "") {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "branch NAME needs --create or --delete; without them branch lists the branches")
	}
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	current, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	if !req.Create && !req.Delete {
		iter, err := rp.r.Storer.IterReferences()
		if err != nil {
			return envelope.Envelope{}, vcsErr("listing branches", err)
		}
		list := []BranchInfo{}
		iter.ForEach(func(r *plumbing.Reference) error {
			if r.Name().IsBranch() && r.Type() == plumbing.HashReference {
				list = append(list, BranchInfo{Name: r.Name().Short(), Hash: r.Hash().String(), Current: r.Name().Short() == current})
			}
			return nil
		})
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		where := "current " + current
		if current == "" {
			where = "detached HEAD"
		}
		env := envelope.New("", fmt.Sprintf("%s (%s).", plural(len(list), "branch", "branches"), where), map[string]any{"branches": list, "current": current})
		return env, nil
	}
	if err := needWrite(ws, "vcs.branch --"+map[bool]string{true: "create", false: "delete"}[req.Create]); err != nil {
		return envelope.Envelope{}, err
	}
	ref, err := branchRef(req.Name, "name")
	if err != nil {
		return envelope.Envelope{}, err
	}
	existing, exErr := rp.r.Storer.Reference(ref)
	if req.Create {
		if exErr == nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.EditConflict, "branch %s already exists at %s; choose another name", req.Name, short(existing.Hash())).With("name", req.Name).With("reason", "target-exists")
		}
		start := head
		if req.Start != "" {
			if start, err = rp.resolveRev(req.Start); err != nil {
				return envelope.Envelope{}, err
			}
		}
		if start.IsZero() {
			return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "there is no commit to start branch %s at; commit first", req.Name)
		}
		args := map[string]any{"action": "branch", "name": req.Name, "create": true}
		if req.Start != "" {
			args["start"] = req.Start
		}
		d, err := gated(ws, "Create branch "+req.Name+" at "+short(start), args, start.String(), false, "")
		if err != nil {
			return envelope.Envelope{}, err
		}
		if d.Staged != nil {
			return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
		}
		if err := rp.r.Storer.SetReference(plumbing.NewHashReference(ref, start)); err != nil {
			return envelope.Envelope{}, vcsErr("creating branch "+req.Name, err)
		}
		if err := gate.Consume(ws, d.Approval); err != nil {
			return envelope.Envelope{}, err
		}
		env := envelope.New("", fmt.Sprintf("Created branch %s at %s (HEAD unchanged; `aw vcs checkout %s` switches to it).", req.Name, short(start), req.Name),
			map[string]any{"name": req.Name, "hash": start.String(), "created": true})
		env.Fact("branch %s created at %s", req.Name, short(start))
		return env, nil
	}
	if exErr != nil {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "branch %s does not exist; list branches with `aw vcs branch`", req.Name).With("name", req.Name)
	}
	args := map[string]any{"action": "branch", "name": req.Name, "delete": true}
	refusal := fmt.Sprintf("deleting branch %s drops the name of commit %s, which may be its only name; keep the branch, or ask a human to allow destructive operations", req.Name, short(existing.Hash()))
	d, err := gated(ws, "Delete branch "+req.Name, args, existing.Hash().String(), true, refusal)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	if req.Name == current {
		return envelope.Envelope{}, envelope.Errorf(envelope.VCSError, "branch %s is checked out; check out another branch before deleting it", req.Name).With("name", req.Name)
	}
	if err := rp.r.Storer.RemoveReference(ref); err != nil {
		return envelope.Envelope{}, vcsErr("deleting branch "+req.Name, err)
	}
	if cfg, err := rp.r.Config(); err == nil && cfg.Branches[req.Name] != nil {
		delete(cfg.Branches, req.Name)
		rp.r.Storer.SetConfig(cfg)
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	env := envelope.New("", fmt.Sprintf("Deleted branch %s (was %s).", req.Name, short(existing.Hash())),
		map[string]any{"name": req.Name, "hash": existing.Hash().String(), "deleted": true})
	env.Retention.Importance = envelope.High
	env.Fact("branch %s deleted (was %s)", req.Name, existing.Hash().String())
	return env, nil
}

// Push sends the current branch to a remote. --force is sent as
// force-with-lease: refused when the remote moved since it was last seen.
func Push(ctx context.Context, ws *workspace.Workspace, req *PushRequest) (envelope.Envelope, error) {
	rp, err := open(ws)
	if err != nil {
		return envelope.Envelope{}, err
	}
	branch, head, err := rp.head()
	if err != nil {
		return envelope.Envelope{}, err
	}
	if branch == "" || head.IsZero() {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "push needs a checked-out branch with commits; check out a branch first")
	}
	remote := req.Remote
	cfg, err := rp.r.Config()
	if err != nil {
		return envelope.Envelope{}, vcsErr("reading the config", err)
	}
	if remote == "" {
		remote = "origin"
		if b := cfg.Branches[branch]; b != nil && b.Remote != "" {
			remote = b.Remote
		}
	}
	rc, ok := cfg.Remotes[remote]
	if !ok {
		return envelope.Envelope{}, envelope.Errorf(envelope.NotFound, "remote %q is not configured; the remotes are %s", remote, remoteNames(cfg)).With("remote", remote)
	}
	url := ""
	if len(rc.URLs) > 0 {
		url = redact(rc.URLs[0])
	}
	args := map[string]any{"action": "push", "remote": remote}
	if req.Force {
		args["force"] = true
	}
	refusal := fmt.Sprintf("a forced push can replace commits on %s/%s that others rely on (aw sends it as force-with-lease); push without force after bringing in the remote's commits", remote, branch)
	d, err := gated(ws, fmt.Sprintf("Push %s to %s (%s)%s", branch, remote, url, map[bool]string{true: " with force-with-lease", false: ""}[req.Force]),
		args, []string{branch, head.String()}, req.Force, refusal)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	ref := plumbing.NewBranchReferenceName(branch)
	opts := &git.PushOptions{RemoteName: remote, RefSpecs: []config.RefSpec{config.RefSpec(ref.String() + ":" + ref.String())}}
	if req.Force {
		opts.ForceWithLease = &git.ForceWithLease{}
	}
	err = rp.r.PushContext(ctx, opts)
	upToDate := errors.Is(err, git.NoErrAlreadyUpToDate)
	if err != nil && !upToDate {
		msg := err.Error()
		switch {
		case req.Force && (strings.Contains(msg, "non-fast-forward") || errors.Is(err, plumbing.ErrReferenceNotFound)):
			return envelope.Envelope{}, envelope.Errorf(envelope.VCSError,
				"force-with-lease refused: %s/%s is not where this repository last saw it (someone pushed since, or it was never fetched); fetch and review the remote's commits before forcing again", remote, branch).With("remote", remote).With("branch", branch)
		case strings.Contains(msg, "non-fast-forward"):
			return envelope.Envelope{}, envelope.Errorf(envelope.VCSError,
				"push rejected: %s/%s has commits this branch lacks (non-fast-forward); bring them in first, or push with --force (destructive, sent as force-with-lease)", remote, branch).With("remote", remote).With("branch", branch)
		}
		return envelope.Envelope{}, envelope.Errorf(envelope.VCSError, "push to %s failed: %s; check the remote's URL and credentials", remote, redact(msg)).With("remote", remote)
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	summary := fmt.Sprintf("Pushed %s to %s at %s.", branch, remote, short(head))
	if upToDate {
		summary = fmt.Sprintf("%s/%s is already up to date at %s.", remote, branch, short(head))
	}
	env := envelope.New("", summary, map[string]any{"remote": remote, "branch": branch, "head": head.String(), "forced": req.Force, "upToDate": upToDate})
	env.Retention.Importance = envelope.High
	env.Fact("pushed %s to %s at %s", branch, remote, short(head))
	return env, nil
}

func remoteNames(cfg *config.Config) string {
	var names []string
	for n := range cfg.Remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none (add one with git remote add)"
	}
	return strings.Join(names, ", ")
}

// redact hides credentials in a URL (https://user:token@host).
func redact(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if at := strings.IndexByte(rest, '@'); at >= 0 && !strings.ContainsAny(rest[:at], "/ ") {
			return s[:i+3] + "[redacted]@" + rest[at+1:]
		}
	}
	return s
}

// Init creates a repository at the workspace root; on an existing one it is
// a no-op and stages nothing.
func Init(ctx context.Context, ws *workspace.Workspace, req *InitRequest) (envelope.Envelope, error) {
	branch := req.Branch
	if branch == "" {
		branch = loadConfig("").get("init", "", "defaultbranch")
	}
	if branch == "" {
		branch = "main"
	}
	ref, err := branchRef(branch, "branch")
	if err != nil {
		return envelope.Envelope{}, err
	}
	if _, err := os.Lstat(filepath.Join(ws.Root, ".git")); err == nil {
		env := envelope.New("", fmt.Sprintf("%s is already a git repository; nothing to do.", ws.Root), map[string]any{"created": false, "path": "."})
		return env, nil
	}
	args := map[string]any{"action": "init"}
	if req.Branch != "" {
		args["branch"] = req.Branch
	}
	d, err := gated(ws, "Create a git repository at the workspace root (branch "+branch+")", args, ws.Root, false, "")
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Staged != nil {
		return gate.StagedEnvelope(d.Staged, ws.Settings.PermissionMode), nil
	}
	if _, err := git.PlainInitWithOptions(ws.Root, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: ref}}); err != nil {
		return envelope.Envelope{}, vcsErr("creating the repository", err)
	}
	if err := gate.Consume(ws, d.Approval); err != nil {
		return envelope.Envelope{}, err
	}
	data := map[string]any{"created": true, "path": ".", "branch": branch}
	summary := fmt.Sprintf("Created a git repository at the workspace root on branch %s.", branch)
	// As `aw init` does: aw's state must not show as untracked.
	excluded, err := awconfig.ExcludeFromGit(ws.Root)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if excluded != "" {
		data["gitExclude"] = excluded
		summary += " Added .agentic/ to " + excluded + "."
	}
	env := envelope.New("", summary, data)
	env.Fact("git repository created (branch %s)", branch)
	return env, nil
}

// switchTo moves the worktree, the index and HEAD from one commit to
// another: only the files that differ between the two trees are written or
// removed (go-git's Reset would also delete untracked files, .agentic/
// included). The caller has checked that no tracked file has local changes
// and no untracked file is in the way.
func (rp *repo) switchTo(from plumbing.Hash, to *object.Commit, isBranch bool, branch plumbing.ReferenceName) error {
	var fromTree plumbing.Hash
	if !from.IsZero() {
		if c, err := rp.commit(from); err == nil {
			fromTree = c.TreeHash
		}
	}
	var pairs []filePair
	if err := rp.treeDiff(fromTree, to.TreeHash, "", &pairs); err != nil {
		return err
	}
	// Every path checkout removes or writes goes through the jail first,
	// as an edit's would: never .git/, .agentic/, protectedPatterns,
	// denyPaths, nor outside a workspace that is a sub-directory of the
	// repository. The last element is not followed (it is removed, then
	// written), so only its directory is resolved.
	for _, p := range pairs {
		for _, e := range []side{p.a, p.b} {
			if e.mode == 0 {
				continue
			}
			full := filepath.Join(rp.top, filepath.FromSlash(e.path))
			dir, err := rp.ws.Jail.Resolve(filepath.Dir(full), workspace.Write)
			if err == nil && (dir.Outside || !strings.HasPrefix(full, rp.top+string(filepath.Separator))) {
				err = envelope.Errorf(envelope.PathEscape, "checkout would write %s, outside the workspace; check it out with git outside aw", e.path).With("path", e.path)
			}
			if err != nil {
				return err
			}
			rel := filepath.Base(full)
			if dir.Rel != "" && dir.Rel != "." {
				rel = dir.Rel + "/" + rel
			}
			if rp.ws.Jail.Protected(rel) || rp.ws.Jail.Denied(rel) {
				return envelope.Errorf(envelope.ProtectedPath,
					"checkout would rewrite %s, which is protected (.git/**, .agentic/**, protectedPatterns and denyPaths are never written by aw's tools); a human checks it out with git", rel).With("path", rel)
			}
		}
	}
	changed := map[string]bool{}
	// Removals first (a file may become a directory), then writes.
	for _, p := range pairs {
		if p.a.mode != 0 && p.b.mode == 0 {
			full := filepath.Join(rp.top, filepath.FromSlash(p.a.path))
			if p.a.mode != modeGitlink {
				os.Remove(full)
			}
			for d := filepath.Dir(full); d != rp.top && len(d) > len(rp.top); d = filepath.Dir(d) {
				if os.Remove(d) != nil {
					break // not empty
				}
			}
		}
	}
	for _, p := range pairs {
		if p.b.mode == 0 {
			continue
		}
		changed[p.b.path] = true
		full := filepath.Join(rp.top, filepath.FromSlash(p.b.path))
		if p.b.mode == modeGitlink {
			os.MkdirAll(full, 0o755)
			continue
		}
		content, err := rp.content(p.b)
		if err != nil {
			return vcsErr("reading "+p.b.path, err)
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return vcsErr("writing "+p.b.path, err)
		}
		os.Remove(full)
		if p.b.mode == modeSymlink {
			if err := os.Symlink(string(content), full); err != nil {
				return vcsErr("writing "+p.b.path, err)
			}
			continue
		}
		perm := os.FileMode(0o644)
		if p.b.mode == modeExec {
			perm = 0o755
		}
		if err := os.WriteFile(full, content, perm); err != nil {
			return vcsErr("writing "+p.b.path, err)
		}
	}
	// The new index: the target tree, keeping the stat data of entries
	// that did not change so the next status stays a stat comparison.
	old, err := rp.r.Storer.Index()
	if err != nil {
		return vcsErr("reading the index", err)
	}
	prev := map[string]*index.Entry{}
	for _, e := range old.Entries {
		prev[e.Name] = e
	}
	idx := &index.Index{Version: old.Version}
	if idx.Version < 2 {
		idx.Version = 2
	}
	var add func(th plumbing.Hash, dir string) error
	add = func(th plumbing.Hash, dir string) error {
		entries, err := rp.tree(th)
		if err != nil {
			return vcsErr("reading tree "+th.String(), err)
		}
		for _, te := range entries {
			p := te.Name
			if dir != "" {
				p = dir + "/" + te.Name
			}
			if te.Mode == modeDir {
				if err := add(te.Hash, p); err != nil {
					return err
				}
				continue
			}
			if e, ok := prev[p]; ok && !changed[p] && e.Hash == te.Hash && e.Mode == te.Mode && e.Stage == 0 {
				idx.Entries = append(idx.Entries, e)
				continue
			}
			e := &index.Entry{Name: p, Hash: te.Hash, Mode: te.Mode}
			if fi, err := os.Lstat(filepath.Join(rp.top, filepath.FromSlash(p))); err == nil {
				e.ModifiedAt, e.Size = fi.ModTime(), uint32(fi.Size())
				fillStat(e, fi)
			}
			idx.Entries = append(idx.Entries, e)
		}
		return nil
	}
	if err := add(to.TreeHash, ""); err != nil {
		return err
	}
	sort.Slice(idx.Entries, func(i, j int) bool { return idx.Entries[i].Name < idx.Entries[j].Name })
	if err := rp.r.Storer.SetIndex(idx); err != nil {
		return vcsErr("writing the index", err)
	}
	headRef := plumbing.NewHashReference(plumbing.HEAD, to.Hash)
	if isBranch {
		headRef = plumbing.NewSymbolicReference(plumbing.HEAD, branch)
	}
	if err := rp.r.Storer.SetReference(headRef); err != nil {
		return vcsErr("moving HEAD", err)
	}
	return nil
}
