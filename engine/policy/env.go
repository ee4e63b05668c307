package policy

import (
	"os"
	"sort"
	"strings"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// startupVars change how a shell starts or parses, how the dynamic loader
// links, or which helper program a tool runs (a pager, an ssh command, a
// diff driver). They are removed from every spawned environment, whatever
// their source (inherited or commands.env), and never assigned in a line.
var startupVars = []string{
	"ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "IFS", "PS1", "PS2", "PS4",
	"PROMPT_COMMAND", "GLOBIGNORE", "BASH_XTRACEFD", "BASH_COMPAT", "BASH_LOADABLES_PATH", "INPUTRC",
	"LD_*", "DYLD_*", "BASH_FUNC_*",
	"PAGER", "MANPAGER", "MANOPT", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN", "LESSSECURE_ALLOW",
	"EDITOR", "VISUAL", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER",
	"GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_CONFIG", "GIT_CONFIG_*",
	"GIT_EXEC_PATH", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR",
	"PYTHONSTARTUP", "PYTHONINSPECT", "NODE_OPTIONS", "PERL5OPT", "PERL5DB", "RUBYOPT",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"NPM_CONFIG_SCRIPT_SHELL", "NPM_CONFIG_NODE_OPTIONS", "NPM_CONFIG_SHELL", "NPM_CONFIG_GIT",
}

// lineOnlyVars are also refused when a line assigns them (X=v cmd, env
// X=v cmd): they choose which program runs or where its configuration
// comes from, but a human may still pass them through inheritEnv or env.
var lineOnlyVars = []string{
	"PATH", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "SHELL", "GIT_*", "NPM_CONFIG_*", "YARN_*",
	"PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "NODE_PATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "GEM_PATH", "GEM_HOME",
	"GOFLAGS", "GOENV", "GOTOOLCHAIN", "GOROOT", "GOPROXY", "GONOSUMDB", "GONOSUMCHECK", "GOINSECURE",
	"CC", "CXX", "CPP", "LD", "AR", "FC", "GCCGO", "PKG_CONFIG", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_LDFLAGS",
	"RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "CARGO_*", "RUSTFLAGS", "RUSTDOCFLAGS",
	"MAKEFLAGS", "MFLAGS", "MAKEFILES", "MAKELEVEL", "LESS", "BROWSER", "TERMINFO", "TMUX",
}

func matchVar(list []string, name string) bool {
	up := strings.ToUpper(name)
	for _, p := range list {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(up, prefix) {
				return true
			}
		} else if up == p {
			return true
		}
	}
	return false
}

// Stripped reports whether Env removes the variable name.
func Stripped(name string) bool { return matchVar(startupVars, name) }

// assignRefused reports whether a line may not assign name.
func assignRefused(name string) bool {
	return matchVar(startupVars, name) || matchVar(lineOnlyVars, name)
}

// Env returns the environment of a spawned process: the commands.inheritEnv
// picks from the process's own environment (os.Environ), overlaid with
// commands.env, with every startup variable removed (Stripped). An
// inheritEnv entry ending in * picks by prefix ("LC_*"). Sorted by name.
func Env(ws *workspace.Workspace) []string { return EnvFrom(ws, os.Environ()) }

// EnvFrom is Env with the parent environment given (NAME=value entries).
func EnvFrom(ws *workspace.Workspace, environ []string) []string {
	picked := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		for _, want := range ws.Settings.Commands.InheritEnv {
			if prefix, wild := strings.CutSuffix(want, "*"); (wild && strings.HasPrefix(name, prefix)) || name == want {
				picked[name] = value
				break
			}
		}
	}
	for name, value := range ws.Settings.Commands.Env {
		picked[name] = value
	}
	out := make([]string, 0, len(picked))
	for name, value := range picked {
		if Stripped(name) {
			continue
		}
		out = append(out, name+"="+value)
	}
	sort.Strings(out)
	return out
}
