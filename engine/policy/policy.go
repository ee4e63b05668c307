// Package policy decides whether a command may run (SPEC §6.9, seed 002:
// "run_shell/exec run argv, NOT a shell", "Argument rules", "Shell mode",
// "Refusal reasons"). It parses, it never runs anything, and it never
// prints. engine/command asks Check before every run and start (and takes
// the spawned environment from Env); `aw policy check-command` shows its
// verdict as it is.
//
// Interpreter "none" splits a line into words with quotes respected and
// refuses every unquoted operator with advice. Interpreter "sh" parses the
// line as bash with mvdan.cc/sh/v3 and checks every simple command in it;
// anything the walker does not fully read is unsupported-syntax. Either
// way each command goes through: a name decided at run time (not-allowed),
// commands.deny by basename, case-insensitively (denied-executable), values
// decided at run time while argument rules apply, commands.denyPatterns
// (denied-pattern), aw's human verbs, runners (nested-command unless allow
// names them), commands.allow (not-allowed; transparent command, builtin,
// exec and time need no entry, the command they run does), then the tool's
// built-in rules, which unwrap the command a wrapper runs and check it too.
//
// The built-in rules are always on, whatever the settings say, and count as
// argument rules for their tool (a value decided at run time is refused):
//
//   - wrappers unwrapped: env (-i, -u, NAME=v; -S, -C and unknown options are
//     nested-command), timeout, nice, nohup, stdbuf, command, builtin, exec,
//     time (-o is a checked write), find -exec/-execdir/-ok/-okdir … ; or +,
//     npx/bunx/pnpx/uvx and npm|pnpm|yarn exec|x|dlx (the package's command
//     must be allowed itself);
//   - runners refused: sh, bash, zsh, dash, ksh, fish…, eval, source, ., trap,
//     alias, xargs, parallel, watch, script, expect, sudo, doas, su, setsid,
//     chroot, unshare, busybox, toybox, ssh, at, tmux, screen, strace, gdb…;
//   - git: -c/--config keys other than presentation and identity ones
//     (core.pager, core.sshCommand, core.fsmonitor, core.hooksPath,
//     alias.*=!… all refused), --config-env, --exec-path=, --upload-pack,
//     --receive-pack, --exec, --template, -u on clone/fetch/pull, ext:: and
//     fd:: URLs, rebase -x, grep -O, difftool/mergetool -x/-t, config writes,
//     submodule foreach, bisect run, filter-branch, send-email (nested);
//     -C/--git-dir/--work-tree must stay in the jail;
//   - find -fprint*/-fls/-delete; sed e, w, W, s///e, s///w, -f; awk
//     system(), pipes, getline from a command, print > file, -f, @load;
//     rg --pre/--pre-glob; sort --compress-program (-o is a checked write);
//     man -P/--pager/-H; less/more with ! or +|; tar --to-command,
//     --use-compress-program, -I, -F, --checkpoint-action, --info-script;
//     rsync -e/--rsh/--rsync-path; vim -c/--cmd/-S/-u/+cmd; emacs --eval/-l;
//     zip -TT; scp/sftp -S, -F, -o ProxyCommand/LocalCommand; tee writes are
//     checked; go -exec/-toolexec, go env -w/-u; make SHELL=/--eval;
//     npm --script-shell/--node-options, npm config set;
//   - aw approval accept|deny|token, aw config set, aw prompt (and aw call
//     of those nouns), however wrapped;
//   - assigning a variable that changes how a shell or a tool starts (ENV,
//     BASH_ENV, IFS, CDPATH, PS4, LD_*, DYLD_*, BASH_FUNC_*, PAGER, GIT_*,
//     NODE_OPTIONS, PATH, HOME, GOFLAGS, CC, MAKEFLAGS, …) in X=v cmd, X=v
//     alone, env X=v or make X=v.
//
// Redirections of every operator, cd/pushd targets and the write paths
// above must be literal paths inside the jail, off denyPaths and (for
// writes) off protected paths, from every directory an earlier cd may have
// moved to; they are resolved with symlinks followed, so calling Check
// again just before spawning re-checks them.
package policy

// Request is what to check: an argv (never through a shell), or a line
// (tokenized in interpreter "none", parsed with mvdan.cc/sh in "sh").
type Request struct {
	Argv []string // set for argv mode
	Line string   // set for a command line
	Cwd  string   // root-relative directory the command starts in ("" = the root or scope)
}

// Refusal reasons (seed 002 "Refusal reasons").
const (
	Metacharacter     = "metacharacter"
	UnbalancedQuotes  = "unbalanced-quotes"
	DeniedExecutable  = "denied-executable"
	NotAllowed        = "not-allowed"
	DeniedPattern     = "denied-pattern"
	NestedCommand     = "nested-command"
	UnsupportedSyntax = "unsupported-syntax"
	PathEscape        = "path-escape"
)

// Verdict is the answer, in the shape of SPEC §6.0 policy.check-command.
type Verdict struct {
	Allowed    bool       `json:"allowed"`
	Reason     string     `json:"reason,omitempty"`     // one of the refusal reasons
	Message    string     `json:"message,omitempty"`    // what happened and how to repair it
	Executable string     `json:"executable,omitempty"` // the refused executable, or the first one run
	Path       string     `json:"path,omitempty"`       // the refused path (path-escape)
	Commands   [][]string `json:"commands"`             // every simple command found, as argv after quote removal
	Paths      []string   `json:"paths"`                // redirection targets and cd directories, root-relative
	// Argv is what to run in interpreter "none" (the tokenized line or the
	// argv as given); a line allowed in interpreter "sh" runs through
	// /bin/sh -c Line.
	Argv []string `json:"argv,omitempty"`
	// Shell is true when the line must run through /bin/sh.
	Shell bool `json:"shell,omitempty"`
}
