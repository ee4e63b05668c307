package policy

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/policy/rule"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Executable is what a command name resolves to.
type Executable struct {
	Path      string // the file that runs ("" when nothing was found)
	Target    string // Path with every symlink followed
	Workspace string // root-relative path when the file lives inside the workspace (node_modules/.bin included)
}

// LookPath resolves a command name the way aw runs it: a name with a slash
// is a path from dirAbs; a bare name is looked up on the PATH of env
// (absolute entries outside the workspace only: a directory the agent can
// write never shadows a real tool), then in node_modules/.bin from dirAbs
// up to the root. allow and deny judge the result by what it resolves to.
func LookPath(ws *workspace.Workspace, name, dirAbs string, env []string) Executable {
	return lookPath(ws, name, dirAbs, searchDirs(ws.Jail.Root, EnvValue(env, "PATH")))
}

// searchDirs are the PATH entries a bare name is looked up in.
func searchDirs(root, path string) []string {
	var out []string
	for _, dir := range filepath.SplitList(path) {
		if usablePathDir(root, dir) {
			out = append(out, dir)
		}
	}
	return out
}

func lookPath(ws *workspace.Workspace, name, dirAbs string, pathDirs []string) Executable {
	root := ws.Jail.Root
	var p string
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		p = name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dirAbs, p)
		}
		if !IsExecutable(p) {
			return withTarget(root, Executable{Path: filepath.Clean(p)}, false)
		}
		return withTarget(root, Executable{Path: filepath.Clean(p)}, true)
	}
	for _, dir := range pathDirs {
		if p = filepath.Join(dir, name); IsExecutable(p) {
			return withTarget(root, Executable{Path: p}, true)
		}
	}
	for dir := dirAbs; within(root, dir); dir = filepath.Dir(dir) {
		if p = filepath.Join(dir, "node_modules", ".bin", name); IsExecutable(p) {
			return withTarget(root, Executable{Path: p}, true)
		}
		if dir == root || dir == filepath.Dir(dir) {
			break
		}
	}
	return Executable{}
}

func withTarget(root string, e Executable, exists bool) Executable {
	e.Target = e.Path
	if exists {
		if t, err := filepath.EvalSymlinks(e.Path); err == nil {
			e.Target = t
		}
	}
	lex := e.Path
	if real, err := filepath.EvalSymlinks(filepath.Dir(lex)); err == nil {
		lex = filepath.Join(real, filepath.Base(lex))
	}
	if within(root, lex) {
		e.Workspace = filepath.ToSlash(mustRel(root, lex))
	} else if within(root, e.Target) {
		e.Workspace = filepath.ToSlash(mustRel(root, e.Target))
	}
	return e
}

// usablePathDir: an absolute PATH entry that is not inside the workspace.
func usablePathDir(root, dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return !within(root, dir)
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func mustRel(root, p string) string {
	rel, _ := filepath.Rel(root, p)
	return rel
}

// IsExecutable reports whether p is a regular file with an execute bit.
func IsExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// EnvValue is key's value in env (NAME=value entries), "" when absent.
func EnvValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in exec
		}
	}
	return v
}

// allowedWorkspacePath reports whether commands.allow names the
// root-relative path rel (as "./scripts/test.sh" or "scripts/test.sh").
func (c *checker) allowedWorkspacePath(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	for _, a := range c.ws.Settings.Commands.Allow {
		if strings.ContainsRune(a, '/') && filepath.ToSlash(filepath.Clean(a)) == rel {
			return true
		}
	}
	return false
}

// resolveName resolves a command name from every directory the line may
// be in (cached: a line names go five hundred times).
func (c *checker) resolveName(name string) []Executable {
	if c.lookups == nil {
		c.lookups = map[lookupKey][]Executable{}
		c.env = Env(c.ws)
		c.pathDirs = filepath.SplitList(EnvValue(c.env, "PATH")) // Env already dropped the workspace's
	}
	key := lookupKey{name, len(c.dirs)}
	if r, ok := c.lookups[key]; ok {
		return r
	}
	var out []Executable
	for _, d := range c.dirs {
		out = append(out, lookPath(c.ws, name, filepath.Join(c.ws.Jail.Root, d), c.pathDirs))
	}
	c.lookups[key] = out
	return out
}

// lookupKey is a name resolved from the line's directories so far (cd
// only adds directories, so their number tells them apart).
type lookupKey struct {
	name string
	dirs int
}

func (c *checker) patternMayMatch(exe string) bool {
	for _, m := range c.patterns {
		if m.MayMatchExecutable(exe) {
			return true
		}
	}
	return false
}

// workspaceExecutable decides a command whose file lives inside the
// workspace, where the agent can write it: it runs only when
// commands.allow names that workspace path. It reports whether it decided.
func (c *checker) workspaceExecutable(name, exe string, resolved []Executable) bool {
	for _, r := range resolved {
		if r.Workspace == "" {
			continue
		}
		if c.allowedWorkspacePath(r.Workspace) {
			continue
		}
		c.refuse(NotAllowed, exe, r.Workspace, "%s is the file %s inside the workspace, which the agent can write, so it runs only when commands.allow names that path; a human who wants it to run adds %q with `aw config set commands.allow` (a bare name in commands.allow never covers a workspace file)", name, r.Workspace, "./"+r.Workspace)
		return true
	}
	for _, r := range resolved {
		if r.Workspace != "" {
			return true // every directory's file is allowed by its path
		}
	}
	return false
}

// lookAlike refuses a path-qualified executable outside the workspace
// whose file is not the allowed tool it is named after (/tmp/x/ls -> rm).
func (c *checker) lookAlike(name, exe string, resolved []Executable) bool {
	if !strings.ContainsRune(name, '/') {
		return false
	}
	for _, r := range resolved {
		if r.Target == "" {
			continue
		}
		if std := lookPath(c.ws, exe, c.ws.Jail.Root, c.pathDirs); std.Target == r.Target {
			continue // /usr/bin/awk is the awk on PATH (mawk behind an alternative)
		}
		// Another file of an allowed name, in a directory on the
		// command's PATH (a second toolchain): the file a human installed.
		tb := rule.Base(r.Target)
		if (strings.EqualFold(tb, exe) || c.allow[tb]) && c.onPath(filepath.Dir(r.Target)) {
			continue
		}
		c.refuse(NotAllowed, exe, "", "%s resolves to %s, which is not the %s on the command's PATH that commands.allow names; run the tool by its name (or from a directory on PATH)", name, r.Target, exe)
		return true
	}
	return false
}

// onPath reports whether dir (a real path) is one of the PATH directories.
func (c *checker) onPath(dir string) bool {
	for _, d := range c.pathDirs {
		if real, err := filepath.EvalSymlinks(d); err == nil && real == dir || d == dir {
			return true
		}
	}
	return false
}
