package github

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Repo is an owner/name pair on GitHub.
type Repo struct {
	Owner, Name string
	// Source says where it came from: "--repo" or "remote origin".
	Source string
}

func (r Repo) String() string { return r.Owner + "/" + r.Name }

// validPart says s is a GitHub owner or repository name: [A-Za-z0-9_.-]+,
// and not "." or "..".
func validPart(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// resolveRepo reads --repo OWNER/NAME (a GitHub URL also works), else the
// "origin" remote of the workspace's git repository.
func resolveRepo(ws *workspace.Workspace, flag string) (Repo, error) {
	if flag != "" {
		owner, name, ok := splitRepo(flag)
		if !ok {
			if o, n, ok2 := parseRemote(flag); ok2 {
				owner, name, ok = o, n, true
			}
		}
		if !ok {
			return Repo{}, envelope.Errorf(envelope.InvalidInput,
				"repo %q is not OWNER/NAME (letters, digits, '.', '_' or '-' on each side)", redactURL(flag)).With("repo", redactURL(flag))
		}
		return Repo{Owner: owner, Name: name, Source: "--repo"}, nil
	}
	cfgPath, err := gitConfigPath(ws.Root)
	if err != nil {
		return Repo{}, err
	}
	raw, err := os.ReadFile(cfgPath)
	if err != nil {
		return Repo{}, envelope.Errorf(envelope.InvalidInput,
			"no --repo given and the workspace's git config cannot be read (%v); pass --repo OWNER/NAME", err)
	}
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(bytes.NewReader(raw)).Decode(cfg); err != nil {
		return Repo{}, envelope.Errorf(envelope.InvalidInput,
			"no --repo given and %s does not parse as a git config (%v); pass --repo OWNER/NAME", ws.Rel(cfgPath), err)
	}
	remote := cfg.Section("remote").Subsection("origin").Option("url")
	if remote == "" {
		return Repo{}, envelope.Errorf(envelope.InvalidInput,
			"no --repo given and the workspace's git repository has no remote \"origin\"; pass --repo OWNER/NAME")
	}
	owner, name, ok := parseRemote(remote)
	if !ok {
		return Repo{}, envelope.Errorf(envelope.InvalidInput,
			"no --repo given and the origin remote %q does not end in OWNER/NAME; pass --repo OWNER/NAME", redactURL(remote)).With("remote", redactURL(remote))
	}
	return Repo{Owner: owner, Name: name, Source: "remote origin"}, nil
}

func splitRepo(s string) (string, string, bool) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok || !validPart(owner) || !validPart(name) {
		return "", "", false
	}
	return owner, strings.TrimSuffix(name, ".git"), true
}

// parseRemote takes OWNER/NAME from the last two path elements of a remote
// URL: https://host/o/r(.git), ssh://git@host[:port]/o/r.git,
// git://host/o/r, or the scp form git@host:o/r.git.
func parseRemote(remote string) (string, string, bool) {
	remote = strings.TrimSpace(remote)
	var path string
	if i := strings.Index(remote, "://"); i > 0 {
		u, err := url.Parse(remote)
		if err != nil {
			return "", "", false
		}
		path = u.Path
	} else if host, p, ok := strings.Cut(remote, ":"); ok && !strings.Contains(host, "/") {
		path = p
	} else {
		return "", "", false
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return "", "", false
	}
	owner, name := parts[len(parts)-2], parts[len(parts)-1]
	if !validPart(owner) || !validPart(name) {
		return "", "", false
	}
	return owner, name, true
}

// gitDir finds the repository of root: root/.git or an ancestor's, as git
// does. A .git file (a worktree or submodule) points at the real one.
func gitDir(root string) (string, error) {
	for d := root; ; {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return p, nil
			}
			raw, err := os.ReadFile(p)
			if err != nil {
				return "", envelope.Errorf(envelope.InvalidInput, "cannot read %s (%v); pass --repo OWNER/NAME", p, err)
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir:")
			if !ok {
				return "", envelope.Errorf(envelope.InvalidInput, "%s is neither a directory nor a gitdir: file; pass --repo OWNER/NAME", p)
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(d, target)
			}
			return target, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", envelope.Errorf(envelope.InvalidInput,
				"no --repo given and the workspace is not in a git repository; pass --repo OWNER/NAME")
		}
		d = parent
	}
}

// gitConfigPath is the config file of root's repository (a linked
// worktree's config lives in the common directory).
func gitConfigPath(root string) (string, error) {
	dir, err := gitDir(root)
	if err != nil {
		return "", err
	}
	if raw, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(raw))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		dir = common
	}
	return filepath.Join(dir, "config"), nil
}

// currentBranch is the branch HEAD names ("" when detached or unknown).
func currentBranch(root string) string {
	dir, err := gitDir(root)
	if err != nil {
		return ""
	}
	raw, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "ref: refs/heads/")
	if !ok {
		return ""
	}
	return ref
}
