package command

import (
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/policy"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// resolveExecutable finds what a command name runs: a name with
// a slash is a path, relative to the command's directory and inside the
// jail; a bare name is looked up on the PATH of the environment the
// command gets (not aw's own), then in node_modules/.bin from the
// command's directory up to the root. Relative PATH entries and entries
// inside the workspace are skipped: a file the agent wrote never shadows a
// real tool.
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
		if !policy.IsExecutable(p) {
			return "", envelope.Errorf(envelope.NotFound, "%s is not an executable file; check the path (relative paths start from the command's cwd) and its permissions", name).With("executable", name)
		}
		return p, nil
	}
	path := policy.EnvValue(env, "PATH")
	// The policy's own lookup: PATH entries inside the workspace are never
	// searched, then node_modules/.bin (which the policy let run only when
	// commands.allow names its workspace path).
	if e := policy.LookPath(ws, name, dirAbs, env); e.Path != "" {
		return e.Path, nil
	}
	hint := "add PATH to commands.inheritEnv (or set commands.env.PATH) so commands can find installed tools"
	if path != "" {
		hint = "install it, or pass its path"
	}
	return "", envelope.Errorf(envelope.NotFound,
		"executable %q was not found on the command's PATH (%q) nor in node_modules/.bin; %s", name, path, hint).With("executable", name)
}
