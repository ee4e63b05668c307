// Package vcs owns aw's version control actions (workspace_vcs) on go-git:
// status, diff, log, show, add, commit, checkout, branch, push and init. It
// never runs a git binary, and it writes inside .git only through go-git's
// own operations (its index encoder, object storage, reference storage, push
// and checkout).
//
// The read paths that must stay fast on large trees (status, diff, log with
// a path filter) use go-git's plumbing directly: the index with its stat
// data and cache-tree, a parallel walk that prunes ignored directories
// before it descends, and hashing only of files whose stat changed.
// Objects are read straight from the mapped pack index and pack
// (objects.go), and log walks with the commit-graph file (logwalk.go).
package vcs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func init() {
	// go-git's file:// transport runs git-upload-pack/git-receive-pack
	// binaries; aw serves local remotes in-process instead (no git binary).
	client.InstallProtocol("file", server.DefaultServer)
}

// repo is an opened repository and where the workspace sits inside it.
type repo struct {
	r      *git.Repository
	top    string // the worktree's top directory (realpath)
	gitDir string // its .git directory
	prefix string // the workspace root relative to top, "" or "sub/dir/"
	ws     *workspace.Workspace
	objs   *objectStore // opened by objects()
}

// open finds the repository holding the workspace root (the root itself or
// an ancestor) and opens it with go-git.
func open(ws *workspace.Workspace) (*repo, error) {
	top := ws.Root
	for {
		if fi, err := os.Lstat(filepath.Join(top, ".git")); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			break
		}
		parent := filepath.Dir(top)
		if parent == top {
			return nil, envelope.Errorf(envelope.VCSError,
				"%s is not inside a git repository; create one with `aw vcs init` (gated) or run aw from a repository", ws.Root)
		}
		top = parent
	}
	r, err := git.PlainOpenWithOptions(top, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, envelope.Errorf(envelope.VCSError, "cannot open the git repository at %s: %v; check that .git is a valid repository", top, err)
	}
	rp := &repo{r: r, top: top, gitDir: filepath.Join(top, ".git"), ws: ws}
	if fi, err := os.Stat(rp.gitDir); err == nil && !fi.IsDir() {
		// A .git file (worktree or submodule): follow its gitdir line.
		if raw, err := os.ReadFile(rp.gitDir); err == nil {
			if d, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir:"); ok {
				d = strings.TrimSpace(d)
				if !filepath.IsAbs(d) {
					d = filepath.Join(top, d)
				}
				rp.gitDir = d
			}
		}
	}
	if top != ws.Root {
		rel, _ := filepath.Rel(top, ws.Root)
		rp.prefix = filepath.ToSlash(rel) + "/"
	}
	return rp, nil
}

// toWS turns a repository path into a workspace path; ok is false for paths
// outside the workspace root.
func (rp *repo) toWS(p string) (string, bool) {
	if rp.prefix == "" {
		return p, true
	}
	rest, ok := strings.CutPrefix(p, rp.prefix)
	return rest, ok
}

// toRepo turns a workspace-relative path into a repository path.
func (rp *repo) toRepo(rel string) string {
	if rel == "." || rel == "" {
		return strings.TrimSuffix(rp.prefix, "/")
	}
	return rp.prefix + rel
}

// head returns HEAD's branch name ("" when detached) and commit hash (zero
// on an unborn branch).
func (rp *repo) head() (branch string, hash plumbing.Hash, err error) {
	ref, err := rp.r.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", plumbing.ZeroHash, vcsErr("reading HEAD", err)
	}
	if ref.Type() == plumbing.SymbolicReference {
		branch = ref.Target().Short()
		res, err := rp.r.Reference(ref.Target(), true)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			return branch, plumbing.ZeroHash, nil // unborn
		}
		if err != nil {
			return branch, plumbing.ZeroHash, vcsErr("resolving HEAD", err)
		}
		return branch, res.Hash(), nil
	}
	return "", ref.Hash(), nil
}

// jailPath resolves a workspace path argument for reading through the
// jail (PATH_ESCAPE outside it or on denyPaths) and returns it relative to
// the repository's top directory.
func (rp *repo) jailPath(p string) (string, error) {
	jp, err := rp.ws.Jail.Resolve(p, workspace.Read)
	if err != nil {
		return "", err
	}
	if jp.Outside {
		return "", envelope.Errorf(envelope.PathEscape, "path %q is under an allowPaths root, outside the repository; name a path inside the workspace", p).With("path", p)
	}
	if jp.Rel == ".git" || strings.HasPrefix(jp.Rel, ".git/") {
		return "", envelope.Errorf(envelope.ProtectedPath, "%s is inside .git, which only go-git's own operations change; name a worktree path", jp.Rel).With("path", jp.Rel)
	}
	if jp.Rel == "." {
		return strings.TrimSuffix(rp.prefix, "/"), nil
	}
	return rp.toRepo(jp.Rel), nil
}

func vcsErr(what string, err error) *envelope.Error {
	return envelope.Errorf(envelope.VCSError, "%s failed: %v; check the repository with `aw vcs status`", what, err)
}

// short abbreviates a hash for summaries.
func short(h plumbing.Hash) string { return h.String()[:7] }

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
