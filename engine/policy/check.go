package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/policy/rule"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// maxDepth bounds wrapper and substitution nesting; maxDirs bounds the
// working directories an `a; cd b; cd c` line may have moved to.
const (
	maxDepth = 16
	maxDirs  = 64
)

// word is one argument after quote removal. dynamic says why its value is
// only known when the shell runs ("$HOME", "$(…)", "a glob"); its text is
// then the source as written.
// (A line holds thousands of words: two strings and a pointer keep each
// small.)
type word struct {
	text    string
	dynamic string // stdinArgs marks the arguments xargs appends from stdin
	// glob is the word as a filepath.Match pattern when a glob is all
	// that makes it dynamic (quoted parts escaped): the shell's expansion
	// can be redone to see which files it names.
	glob *string
}

// stdinArgs is the dynamic reason of the arguments xargs appends from
// stdin: only a rule that could read them (the tool's own, a deny pattern
// for it) refuses them.
const stdinArgs = "the arguments xargs reads from stdin"

func literal(argv []string) []word {
	out := make([]word, len(argv))
	for i, a := range argv {
		out[i] = word{text: a}
	}
	return out
}

func texts(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.text
	}
	return out
}

type resolvedKey struct {
	access workspace.Access
	path   string
}

// checker carries one Check: the compiled settings, the verdict being built
// and the first refusal (the one reported).
type checker struct {
	ws       *workspace.Workspace
	allow    map[string]bool
	deny     map[string]bool // lower case
	patterns []*rule.Matcher
	argRules bool // deny or denyPatterns configured
	shell    bool // interpreter "sh": cd, builtins and redirections mean what sh makes them mean
	line     string
	dirs     []string // every root-relative directory the line may be in
	seen     map[string]bool
	resolved map[resolvedKey]bool // paths (from a line directory) already found inside the jail
	argSeen  map[argKey]bool      // words already checked as paths
	lookups  map[lookupKey][]Executable
	env      []string          // the spawned environment, for PATH
	pathDirs []string          // its PATH entries
	grant    bool              // inside the -c text of a shell named in commands.allow: allow does not apply, deny does
	gitDirs  map[string]string // directory -> the foreign repository git would use there ("" = the root's own)
	v        Verdict
	refused  bool
}

// Check decides whether req may run under ws's settings. It reads the
// filesystem only to resolve redirection targets and cd directories through
// the jail (symlinks followed), so calling it again just before a spawn
// re-checks them. It never runs anything.
func Check(ws *workspace.Workspace, req Request) Verdict {
	s := &ws.Settings.Commands
	c := &checker{ws: ws, allow: map[string]bool{}, deny: map[string]bool{}, seen: map[string]bool{},
		v: Verdict{Commands: [][]string{}, Paths: []string{}}}
	for _, a := range s.Allow {
		c.allow[a] = true
	}
	for _, d := range s.Deny {
		c.deny[strings.ToLower(d)] = true
	}
	patterns, err := s.DenyPatterns.Compile()
	if err != nil {
		c.refuse(NotAllowed, "", "", "commands.denyPatterns cannot be read (%v); a human fixes it with `aw config set commands.denyPatterns`", err)
		return c.verdict()
	}
	c.patterns = patterns
	c.argRules = len(s.Deny) > 0 || len(patterns) > 0
	c.dirs = []string{c.startDir(req.Cwd)}
	if c.refused {
		return c.verdict()
	}
	switch {
	case len(req.Argv) > 0:
		c.v.Argv = req.Argv
		c.command(literal(req.Argv), 0)
	case strings.TrimSpace(req.Line) == "":
		c.refuse(NotAllowed, "", "", "the command is empty; pass an executable and its arguments")
	case strings.IndexByte(req.Line, 0) >= 0:
		c.refuse(NotAllowed, "", "", "the line contains a NUL byte; no shell or program can receive it")
	case s.Interpreter == "sh":
		c.shell, c.line = true, req.Line
		c.v.Shell = true
		c.shellLine(req.Line)
	default:
		c.argvLine(req.Line)
	}
	return c.verdict()
}

func (c *checker) verdict() Verdict {
	c.v.Allowed = !c.refused
	if c.refused {
		c.v.Argv, c.v.Shell = nil, false
	}
	return c.v
}

// startDir is the root-relative directory the command starts in.
func (c *checker) startDir(cwd string) string {
	if cwd == "" {
		return c.ws.Rel(c.ws.Jail.Scope)
	}
	p, err := c.ws.Jail.Resolve(cwd, workspace.Read)
	if err != nil || p.Outside {
		c.refuse(PathEscape, "", cwd, "the working directory %q is not inside the workspace; give a directory relative to the root", cwd)
		return ""
	}
	if c.ws.Jail.Protected(p.Rel) {
		c.refuse(PathEscape, "", cwd, "PROTECTED: the working directory %q is protected, and programs write into their working directory by default (nohup.out, npm init, go mod init, ar x); run from an unprotected directory and name protected files as arguments to read them", cwd)
		return ""
	}
	c.addPath(p.Rel)
	return p.Rel
}

func (c *checker) refuse(reason, exe, path, format string, args ...any) {
	if c.refused {
		return
	}
	c.refused = true
	c.v.Reason = reason
	c.v.Message = fmt.Sprintf(format, args...)
	if exe != "" {
		c.v.Executable = exe
	}
	c.v.Path = path
}

func (c *checker) addPath(rel string) {
	if rel == "" {
		rel = "."
	}
	if !c.seen[rel] {
		c.seen[rel] = true
		c.v.Paths = append(c.v.Paths, rel)
	}
}

// allowHint is how a human widens the allow list.
func (c *checker) allowHint(exe string) string {
	list := append([]string{}, c.ws.Settings.Commands.Allow...)
	list = append(list, exe)
	return fmt.Sprintf("a human who wants it to run adds it with `aw config set commands.allow '%s'`", jsonList(list))
}

func jsonList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// transparent names run their argument in the same process without adding
// any power of their own: they need no allow entry, the inner command does.
var transparent = map[string]bool{"command": true, "builtin": true, "exec": true, "time": true}

// command checks one simple command (and, through wrappers, the commands
// it runs).
func (c *checker) command(ws []word, depth int) {
	if c.refused || len(ws) == 0 {
		return
	}
	if depth > maxDepth {
		c.refuse(NestedCommand, "", "", "commands are nested more than %d deep; run the inner command directly", maxDepth)
		return
	}
	argv := texts(ws) // also the verdict's record: nothing below changes it
	c.v.Commands = append(c.v.Commands, argv)
	name := ws[0]
	if name.dynamic != "" {
		c.refuse(NotAllowed, name.text, "", "the command name %s is decided at run time (%s): the policy cannot know what would run; write the executable's name literally", name.text, name.dynamic)
		return
	}
	if name.text == "" {
		c.refuse(NotAllowed, "", "", "the command name is empty; pass an executable and its arguments")
		return
	}
	exe := rule.Base(name.text)
	low := strings.ToLower(exe)
	shellDir := c.shell && (low == "cd" || low == "pushd" || low == "popd")
	// command, builtin, exec and time are the shell's own words only when
	// written bare: /tmp/x/time is a program like any other.
	isTransparent := transparent[low] && !strings.ContainsRune(name.text, '/')
	if c.v.Executable == "" && !shellDir && !isTransparent {
		c.v.Executable = exe
	}
	if c.deny[low] {
		c.refuse(DeniedExecutable, exe, "", "%s is in commands.deny, so it never runs (whatever its path, case or wrapper); use another tool for the task", exe)
		return
	}
	// allow and deny judge what the name resolves to.
	var resolved []Executable
	if !shellDir {
		resolved = c.resolveName(name.text)
		for _, r := range resolved {
			if t := strings.ToLower(rule.Base(r.Target)); r.Target != "" && c.deny[t] {
				c.refuse(DeniedExecutable, t, "", "%s resolves to %s, and %s is in commands.deny, so it never runs (whatever its path, link, case or wrapper); use another tool for the task", name.text, r.Target, rule.Base(r.Target))
				return
			}
		}
	}
	tool := specFor(low)
	legacy := legacyRule(low)
	if !shellDir && (c.argRules || tool != nil || legacy != nil) {
		for _, w := range ws[1:] {
			if w.dynamic != "" && (w.dynamic != stdinArgs || tool != nil || legacy != nil || c.patternMayMatch(exe)) {
				c.refuse(DeniedPattern, exe, "", "the argument %s of %s is decided at run time (%s) while argument rules are in force, so they cannot see the real argv; write the value literally", w.text, exe, w.dynamic)
				return
			}
		}
	}
	for _, m := range c.patterns {
		if m.Match(argv) {
			c.refuse(DeniedPattern, exe, "", "`%s` matches the commands.denyPatterns rule %q; this use of %s is refused, choose another way to do it", shellJoin(argv), m.Source, exe)
			return
		}
	}
	if shellDir {
		c.cd(low, ws[1:])
		return
	}
	if low == "aw" {
		// aw's human verbs are refused before allow is consulted: no
		// settings make them runnable from inside a command.
		if awRule(c, exe, ws[1:], depth); c.refused {
			return
		}
	}
	if runners()[low] && !c.allow[exe] && !(c.grant && !c.argRules) {
		c.refuse(NestedCommand, exe, "", "%s runs a command the policy cannot see into (a shell, an evaluator, a privilege or session changer), so it is refused; run the inner command directly, or %s", exe, c.allowHint(exe))
		return
	}
	if c.workspaceExecutable(name.text, exe, resolved) || c.refused {
		return
	}
	if !isTransparent && !c.allow[exe] && !c.grant {
		if len(c.ws.Settings.Commands.Allow) == 0 {
			c.refuse(NotAllowed, exe, "", "commands.allow is empty, so nothing may run (fail-closed); a human allows executables with `aw config set commands.allow '[\"%s\"]'`", exe)
			return
		}
		hint := ""
		if low == "cd" {
			hint = " (there is no cd in argv mode: paths are relative to the workspace root, or pass --cwd DIR)"
		}
		c.refuse(NotAllowed, exe, "", "%s is not in commands.allow %s%s; %s", exe, jsonList(c.ws.Settings.Commands.Allow), hint, c.allowHint(exe))
		return
	}
	if c.lookAlike(name.text, exe, resolved) {
		return
	}
	if c.shell {
		if c.shellBuiltin(low, ws[1:]); c.refused {
			return
		}
	}
	if c.shell && arithBuiltins[low] {
		for _, w := range ws[1:] {
			if w.dynamic != "" || strings.ContainsRune(w.text, '[') {
				c.refuse(UnsupportedSyntax, exe, "", "the shell builtin %s may evaluate its argument %s as arithmetic (which can run commands); pass plain literal values without [", exe, w.text)
				return
			}
		}
	}
	if tool == nil && legacy == nil {
		c.argumentPaths(exe, ws[1:])
		if c.refused {
			return
		}
	}
	switch {
	case tool != nil:
		c.runSpec(tool, exe, ws[1:], depth)
	case legacy != nil:
		legacy(c, exe, ws[1:], depth)
	case runners()[low] && (c.argRules || !c.grant):
		// A runner named in allow whose inner command the policy cannot
		// know: deny always wins, so it is refused.
		c.refuse(NestedCommand, exe, "", "%s is in commands.allow, but what it runs cannot be known by the policy, and a denied or unlisted program must not run through it; run the inner command directly", exe)
	}
}

// arithBuiltins are builtins whose arguments bash may evaluate as
// arithmetic, where a[$(cmd)] runs cmd.
var arithBuiltins = map[string]bool{
	"test": true, "[": true, "printf": true, "read": true, "shift": true, "exit": true, "return": true,
	"kill": true, "wait": true, "ulimit": true, "unset": true, "getopts": true, "mapfile": true, "readarray": true,
}

// runners execute something the policy cannot read: a command string, a
// script, another user's or session's process, or commands from stdin.
var runners = sync.OnceValue(func() map[string]bool {
	return setOf("sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "fish", "csh", "tcsh", "ash", "yash", "posh", "rbash", "elvish", "nu", "pwsh",
		"eval", "source", ".", "trap", "alias", "fc", "xargs", "parallel", "watch", "script", "expect", "unbuffer",
		"sudo", "doas", "su", "runuser", "pkexec", "sg", "newgrp", "setsid", "setpriv", "chroot", "unshare", "nsenter",
		"firejail", "bwrap", "systemd-run", "flock", "taskset", "chrt", "ionice", "prlimit", "numactl", "cgexec",
		"enable", "busybox", "toybox", "ssh", "ssh-agent", "at", "batch", "crontab", "tmux", "screen", "dtach",
		"strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "xdg-open", "open", "dbus-launch",
		"chronic", "fakeroot", "proot", "faketime", "torsocks", "proxychains", "proxychains4", "xvfb-run", "dbus-run-session",
		"sshpass", "catchsegv", "nocache", "eatmydata", "rlwrap", "cpulimit", "trickle", "daemonize", "run-parts", "entr", "start-stop-daemon")
})

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// assign refuses assigning a variable that changes how a shell or a tool
// starts (X=v cmd, env X=v cmd, X=v alone).
func (c *checker) assign(name, exe string) {
	if c.refused || !assignRefused(name) || lineSafe[strings.ToUpper(name)] && !matchVar(startupVars, name) {
		return
	}
	if matchVar(shellVars, name) {
		c.refuse(UnsupportedSyntax, exe, "", "assigning %s in a command line is refused: it changes how the shell splits, finds or starts what it runs, so the line would no longer run as it was checked; remove the assignment", name)
		return
	}
	c.refuse(DeniedPattern, exe, "", "assigning %s in a command line is refused: it changes which program runs or how a shell or tool starts; pass ordinary values only (a human sets the environment with commands.env and commands.inheritEnv)", name)
}

// path checks a redirection target or a tool's output file: a literal path
// inside the jail, off denyPaths and (for writes) off protected paths,
// from every directory the line may be in.
func (c *checker) path(w word, access workspace.Access, exe, what string) {
	if c.refused {
		return
	}
	if w.dynamic != "" {
		c.refuse(PathEscape, exe, w.text, "the %s %s is decided at run time (%s); write a literal path inside the workspace", what, w.text, w.dynamic)
		return
	}
	switch w.text {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		c.addPath(w.text)
		return
	case "/dev/zero", "/dev/urandom", "/dev/random", "/dev/stdin":
		if access == workspace.Read {
			c.addPath(w.text)
			return
		}
	case "":
		c.refuse(PathEscape, exe, "", "the %s is empty; write a path inside the workspace", what)
		return
	}
	for _, d := range c.dirs {
		p := w.text
		if !filepath.IsAbs(p) && d != "" && d != "." {
			p = d + "/" + p
		}
		key := resolvedKey{access, p}
		if c.resolved[key] {
			continue // one line names build.log a hundred times
		}
		res, err := c.ws.Jail.Resolve(p, access)
		if err == nil && res.Outside && access == workspace.Write {
			err = envelope.Errorf(envelope.PathEscape, "allowPaths roots are read-only")
		}
		if err != nil {
			var e *envelope.Error
			msg := err.Error()
			if errors.As(err, &e) {
				msg = e.Message
			}
			code := envelope.CodeOf(err)
			if code == envelope.ProtectedPath {
				c.refuse(PathEscape, exe, w.text, "PROTECTED: the %s %s: %s", what, w.text, msg)
			} else {
				c.refuse(PathEscape, exe, w.text, "the %s %s leaves the workspace: %s", what, w.text, msg)
			}
			return
		}
		if c.resolved == nil {
			c.resolved = map[resolvedKey]bool{}
		}
		c.resolved[key] = true
		c.addPath(res.Rel)
	}
}

// cd follows cd/pushd/popd: every target is a literal directory inside the
// jail, and each becomes a directory later paths are checked from.
func (c *checker) cd(name string, args []word) {
	if name == "popd" {
		return
	}
	var target *word
	for i := range args {
		a := args[i]
		if a.dynamic == "" && (a.text == "-L" || a.text == "-P" || a.text == "-e" || a.text == "-@" || a.text == "--") {
			continue
		}
		if target != nil {
			c.refuse(PathEscape, name, a.text, "%s takes one directory; give one literal path inside the workspace", name)
			return
		}
		target = &args[i]
	}
	if target == nil {
		if name == "pushd" {
			return // swaps directories the line has already been in
		}
		c.refuse(PathEscape, name, "~", "cd without a directory goes to $HOME, outside the workspace; give a directory relative to the root")
		return
	}
	if target.dynamic == "" && (target.text == "-" || strings.HasPrefix(target.text, "+") || strings.HasPrefix(target.text, "-")) {
		c.refuse(PathEscape, name, target.text, "%s %s moves to a directory the policy cannot see; give a literal directory relative to the root", name, target.text)
		return
	}
	if target.dynamic != "" {
		c.refuse(PathEscape, name, target.text, "the %s directory %s is decided at run time (%s); give a literal directory relative to the root", name, target.text, target.dynamic)
		return
	}
	var next []string
	for _, d := range c.dirs {
		p := target.text
		if !filepath.IsAbs(p) && d != "" && d != "." {
			p = d + "/" + p
		}
		res, err := c.ws.Jail.Resolve(p, workspace.Read)
		if err == nil && res.Outside {
			err = envelope.Errorf(envelope.PathEscape, "it is an allowPaths root, readable by tools but not a place to run commands")
		}
		if err != nil {
			var e *envelope.Error
			msg := err.Error()
			if errors.As(err, &e) {
				msg = e.Message
			}
			c.refuse(PathEscape, name, target.text, "the %s directory %s leaves the workspace: %s", name, target.text, msg)
			return
		}
		if c.ws.Jail.Protected(res.Rel) {
			c.refuse(PathEscape, name, target.text, "PROTECTED: %s %s moves into a protected directory, and programs write into their working directory by default (nohup.out, npm init, go mod init, ar x); stay outside it and name protected files as arguments to read them", name, target.text)
			return
		}
		c.addPath(res.Rel)
		next = append(next, res.Rel)
	}
	for _, n := range next {
		dup := false
		for _, d := range c.dirs {
			dup = dup || d == n
		}
		if !dup {
			c.dirs = append(c.dirs, n)
		}
	}
	if len(c.dirs) > maxDirs {
		c.refuse(UnsupportedSyntax, name, "", "the line may be in more than %d directories after its cd commands; split it into several commands, each with --cwd", maxDirs)
	}
}

// shellJoin quotes argv for messages, so the caller can copy it back.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=@%+,-", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	if !strings.ContainsAny(s, "\"\\$`") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
