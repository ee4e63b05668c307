package policy

import (
	"os"
	"path/filepath"
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
	"PAGER", "MANPAGER", "MANOPT", "MANROFFOPT", "MANPL", "BROWSER", "LESSOPEN", "LESSCLOSE", "LESSKEY", "LESSKEYIN", "LESSKEY_CONTENT", "LESSSECURE_ALLOW", "LESSEDIT", "LESS",
	"EDITOR", "VISUAL", "SSH_ASKPASS", "SUDO_ASKPASS",
	// git reads its configuration, pager, ssh command, exec path and
	// repository location from GIT_*: all of them go.
	"GIT_*",
	"TAR_OPTIONS", "RIPGREP_CONFIG_PATH", "*_CONFIG_PATH", "*_OPTIONS", "*OPT", "GREP_OPTIONS", "GREP_COLOR",
	"PYTHON*", "NODE_OPTIONS", "PERL5OPT", "PERL5DB", "PERLLIB", "PERL5LIB", "RUBYOPT", "RUBYLIB",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"NPM_CONFIG_SCRIPT_SHELL", "NPM_CONFIG_NODE_OPTIONS", "NPM_CONFIG_SHELL", "NPM_CONFIG_GIT", "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG",
	"VIMINIT", "EXINIT", "MYVIMRC", "VIMRUNTIME", "GVIMINIT", "EMACSLOADPATH",
	"AWKPATH", "AWKLIBPATH", "WGETRC", "CURL_HOME", "SYSTEMD_PAGER", "SYSTEMD_EDITOR", "TERMINFO",
	// the C library and its neighbours load code from these: gconv
	// modules, locale data, OpenSSL engines and providers
	"GCONV_PATH", "GLIBC_TUNABLES", "NLSPATH", "LOCPATH", "OPENSSL_CONF", "OPENSSL_ENGINES", "OPENSSL_MODULES",
	// shells and interpreters that run a start-up file or string
	"ZDOTDIR", "FPATH", "LUA_INIT*", "LUA_PATH*", "LUA_CPATH*", "TCLLIBPATH", "R_PROFILE*", "R_ENVIRON*", "PHPRC", "PHP_INI_SCAN_DIR",
	"ERL_AFLAGS", "ERL_FLAGS", "ERL_ZFLAGS", "PERLDB_OPTS",
	// tools that take options or a remote shell from their environment
	"RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "GZIP", "BZIP", "BZIP2", "XZ_DEFAULTS", "ZIP", "UNZIP", "ZIPINFO", "MORE", "TAPE", "POSIXLY_CORRECT",
	"SIMPLE_BACKUP_SUFFIX", "VERSION_CONTROL", "GCC_EXEC_PREFIX", "COMPILER_PATH", "DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES",
}

// shellVars change how the shell itself starts, splits, looks up or
// traces what it runs: assigning one means the line no longer reads as the
// checker read it, so it is refused as unsupported-syntax.
var shellVars = []string{
	"ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "IFS", "PS1", "PS2", "PS4",
	"PROMPT_COMMAND", "GLOBIGNORE", "BASH_XTRACEFD", "BASH_COMPAT", "BASH_LOADABLES_PATH", "INPUTRC", "BASH_FUNC_*",
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
	"MAKEFLAGS", "MFLAGS", "MAKEFILES", "MAKELEVEL", "TMUX", "XDG_*",
}

// pinnedEnv is set in every spawned environment, after the strip: a tool
// that starts an editor or a pager on its own (git commit without -m, git
// rebase -i, git add -e, crontab -e, man) would otherwise start vi or
// less, and vi reads its keys (and so :!cmd) from whatever stdin the line
// gives it, a pipe or a here-document. ":" edits nothing (git keeps the
// message as it is), cat pages nothing, and LESSSECURE turns off less's
// shell escapes, editor, log files and key files where less still runs.
var pinnedEnv = []string{"EDITOR=:", "VISUAL=:", "GIT_EDITOR=:", "GIT_SEQUENCE_EDITOR=:", "GIT_PAGER=cat", "PAGER=cat", "MANPAGER=cat", "LESSSECURE=1"}

// Pinned reports whether Env sets name to a fixed value.
func Pinned(name string) bool {
	for _, kv := range pinnedEnv {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// riskyWords are the parts of a variable name (split at _, or the end of
// one word) that say it names a program, a search path, a start-up or
// configuration file, options, or a directory a tool writes: a line that
// assigns one is refused, whatever the tool (GCONV_PATH, CLASSPATH,
// LUA_INIT, OPENSSL_CONF, GOBIN, CFLAGS, HISTFILE, KUBECONFIG, …). A human
// can still set such a variable through commands.env or inheritEnv.
var riskyWords = []string{"PATH", "PATHS", "LIB", "LIBS", "PRELOAD", "CONF", "CONFIG", "CFG", "RC", "INIT", "OPT", "OPTS",
	"OPTIONS", "FLAGS", "ARGS", "EDITOR", "PAGER", "SHELL", "CMD", "COMMAND", "PROG", "PROGRAM", "HOOK", "HOOKS", "PLUGIN",
	"PLUGINS", "MODULE", "MODULES", "ENGINE", "ENGINES", "EXEC", "BIN", "HOME", "DIR", "PREFIX", "STARTUP", "PROFILE",
	"LOADER", "HELPER", "ASKPASS", "WRAPPER", "TOOL", "INCLUDE", "FILE", "RSH", "SSH", "BROWSER", "DEBUGGER", "TOOLCHAIN", "PROXY"}

// riskyName reports whether a variable name holds one of riskyWords, as
// a part between underscores or as the end of its last part.
func riskyName(name string) bool {
	up := strings.ToUpper(name)
	parts := strings.Split(up, "_")
	for i, p := range parts {
		for _, w := range riskyWords {
			if p == w || i == len(parts)-1 && len(p) > len(w) && strings.HasSuffix(p, w) {
				return true
			}
		}
	}
	return false
}

// matchVar matches NAME, PREFIX* and *SUFFIX entries, case-insensitively
// (a tool may look a variable up in either case).
func matchVar(list []string, name string) bool {
	up := strings.ToUpper(name)
	for _, p := range list {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(up, prefix) {
				return true
			}
		} else if suffix, ok := strings.CutPrefix(p, "*"); ok {
			if strings.HasSuffix(up, suffix) {
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
	return matchVar(startupVars, name) || matchVar(lineOnlyVars, name) || riskyName(name) || matchVar(lineFamilies, name)
}

// lineFamilies are further prefixes a line may not assign: the toolchains
// read their programs, caches and output directories from them (GOBIN,
// GOCACHE, GOTMPDIR, MAKEFILES, BASH_*, npm_config_*).
var lineFamilies = []string{"GO*", "MAKE*", "BASH*", "NPM_*", "PIP_*", "CARGO*", "RUSTUP*", "DOCKER*", "KUBE*", "JAVA*", "JDK_*", "MAVEN*", "GRADLE*", "DENO_*", "BUN_*"}

// lineSafe are names a line may assign even though a family above
// covers them: they choose a target or a mode, never a program or a file.
var lineSafe = setOf("GOOS", "GOARCH", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOMIPS", "GOPPC64", "GORISCV64", "GOWASM",
	"GOEXPERIMENT", "GODEBUG", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GOTRACEBACK", "GOPRIVATE", "GONOPROXY", "GOFIPS140")

// Env returns the environment of a spawned process: the commands.inheritEnv
// picks from the process's own environment (os.Environ), overlaid with
// commands.env, with every startup variable removed (Stripped) and the
// editors and pagers pinned to ones that read nothing (pinnedEnv). An
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
		if name == "PATH" {
			value = outsidePath(ws, value)
		}
		out = append(out, name+"="+value)
	}
	out = append(out, pinnedEnv...)
	sort.Strings(out)
	return out
}

// outsidePath drops the PATH entries a spawned shell must not search: empty
// and relative ones (the current directory) and every directory inside the
// workspace, where the agent could plant a program named like a real tool.
func outsidePath(ws *workspace.Workspace, path string) string {
	return strings.Join(searchDirs(ws.Jail.Root, path), string(filepath.ListSeparator))
}
