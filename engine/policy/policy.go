// Package policy decides whether a command may run: an argv is run as an
// argv, never through a shell; a line is split into words (interpreter
// none) or parsed as POSIX sh (interpreter sh); every argument is checked
// by its program's rule; a refusal names its reason. It parses, it never
// runs anything, and it never prints. engine/command asks Check before every run and start (and takes
// the spawned environment from Env); `aw policy check-command` shows its
// verdict as it is.
//
// Interpreter "none" splits a line into words with quotes respected and
// refuses every unquoted operator with advice. Interpreter "sh" parses the
// line as bash with mvdan.cc/sh/v3 and checks every simple command in it;
// anything the walker does not fully read is unsupported-syntax. What it
// checks is the canonical re-print of the parsed line (Verdict.Canonical),
// and that text, never the caller's, is what /bin/sh runs; constructs where
// the parser and dash or bash could read a line differently are refused
// (canonical.go lists the families, differential_test.go holds the shells
// to it). Either
// way each command goes through: a name decided at run time (not-allowed),
// commands.deny by basename, case-insensitively (denied-executable), values
// decided at run time while argument rules apply, commands.denyPatterns
// (denied-pattern), aw's human verbs, runners (nested-command unless allow
// names them), commands.allow (not-allowed; transparent command, builtin,
// exec and time need no entry, the command they run does), then the tool's
// built-in rules, which unwrap the command a wrapper runs and check it too.
//
// The built-in rules are always on, whatever the settings say, and count as
// argument rules for their tool (a value decided at run time is refused).
// They are data (tooltable.go, gittable.go, toolspec.go): one option table
// per tool, read by one engine the way getopt_long reads argv (bundles,
// attached and separate values, --opt=v, --, unique-prefix abbreviations,
// ambiguous ones refused), with the argv lines each must allow and refuse
// beside it (TestToolRuleExamples runs them). An option is plain, a read or
// a write (checked through the jail), runs a program (denied-pattern),
// loads program text or configuration (the tool becomes a runner:
// nested-command, unless commands.allow names "TOOL -OPTION"), or is read
// by a value rule (git -c KEY=VALUE); an option the table does not know is
// refused (fail closed). Hooks read a tool's own language only: sed
// scripts (e, w, W refused; r, R checked as reads), awk programs (system,
// pipes, print > file, getline < file, @), tar's mode (-x refused: member
// paths are unseen), dd's KEY=VALUE, git's subcommands and actions.
//
// git: only the root's own repository is trusted; git run in or pointed at
// any other repository inside the workspace is a runner (gitRepository).
//
// Deny always wins: a runner named in commands.allow has its inner command
// checked (xargs with its stdin arguments counted as decided at run time;
// a shell's -c text parsed, allow not applying inside a shell's grant but
// deny and the built-in rules always); a runner whose inner command cannot
// be known is refused. allow and deny judge what a name resolves to
// (LookPath): the target of a path or symlink, a workspace file only when
// allow names its path, PATH entries inside the workspace never searched.
//
// The build and transfer tools (make, go, npm and its kin, rsync, zip,
// unzip, patch, emacs, scp, sftp) are tables too (devtable.go); only aw
// itself is read by position, and its human verbs are refused however
// wrapped. A program without a rule still has its words read as paths
// (argpaths.go): a denied path is a read of it, a protected one a write
// unless the program is a known reader, a glob is what it matches.
// Assigning a variable that changes how a shell or a tool starts, or
// whose name says it loads or names a program or file (env.go), is
// refused on a line; the code-loading ones are stripped from the spawned
// environment, and its editors and pagers are pinned to ones that read
// nothing.
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

// Refusal reasons: details.reason of a COMMAND_DENIED.
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

// Verdict is the answer, as policy.check-command returns it.
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
	// /bin/sh -c Canonical.
	Argv []string `json:"argv,omitempty"`
	// Canonical is, in interpreter "sh", the line as /bin/sh will run it:
	// the re-print of the parsed line, which is what was checked. The
	// caller's text never reaches the shell.
	Canonical string `json:"canonical,omitempty"`
	// Shell is true when the line must run through /bin/sh.
	Shell bool `json:"shell,omitempty"`
}
