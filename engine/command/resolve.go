package command

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// resolveExecutable finds what a command name runs (seed 000): a name with
// a slash is a path, relative to the command's directory and inside the
// jail; a bare name is looked up on the PATH of the environment the
// command gets (not aw's own), then in node_modules/.bin from the
// command's directory up to the root. Relative PATH entries are skipped:
// "." on PATH would let a file the agent wrote shadow a real tool.
func resolveExecutable(ws *workspace.Workspace, name, dirAbs string, env []string) (string, error) {
	if name == "" {
		return "", envelope.Errorf(envelope.InvalidInput, "the executable is empty; pass the program to run first, e.g. `aw command run -- go test ./...`")
	}
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		p := name
		if !filepath.IsAbs(p) {
			rel, err := filepath.Rel(ws.Root, filepath.Join(dirAbs, p))
			if err != nil {
				return "", err
			}
			jp, err := ws.Jail.Resolve(filepath.ToSlash(rel), workspace.Read)
			if err != nil {
				return "", err
			}
			p = jp.Abs
		}
		if !isExecutable(p) {
			return "", envelope.Errorf(envelope.NotFound, "%s is not an executable file; check the path (relative paths start from the command's cwd) and its permissions", name).With("executable", name)
		}
		return p, nil
	}
	path := lookupEnv(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	for dir := dirAbs; ; dir = filepath.Dir(dir) {
		if p := filepath.Join(dir, "node_modules", ".bin", name); isExecutable(p) {
			return p, nil
		}
		if dir == ws.Root || !strings.HasPrefix(dir, ws.Root) || dir == filepath.Dir(dir) {
			break
		}
	}
	hint := "add PATH to commands.inheritEnv (or set commands.env.PATH) so commands can find installed tools"
	if path != "" {
		hint = "install it, or pass its path"
	}
	return "", envelope.Errorf(envelope.NotFound,
		"executable %q was not found on the command's PATH (%q) nor in node_modules/.bin; %s", name, path, hint).With("executable", name)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func lookupEnv(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val // the last one wins, as in exec
		}
	}
	return v
}
