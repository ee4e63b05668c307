package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hookFor names the hooks (a function, not a map: the hooks check inner
// commands, which reach the tables again).
func hookFor(name string) func(c *checker, t *toolCall) {
	switch name {
	case "sed":
		return sedHook
	case "awk":
		return awkHook
	case "tar":
		return tarHook
	case "dd":
		return ddHook
	case "ln":
		return lnHook
	case "ed":
		return edHook
	case "npx":
		return npxHook
	case "git":
		return gitHook
	case "vim":
		return vimHook
	case "links":
		return linksHook
	case "make":
		return makeHook
	case "go":
		return goHook
	case "pkg":
		return pkgHook
	case "rsync":
		return rsyncHook
	case "zip":
		return zipHook
	case "extract":
		return extractHook
	case "man":
		return manHook
	}
	return func(c *checker, t *toolCall) {
		c.refuse(NotAllowed, t.exe, "", "aw's rule for %s names the hook %q, which does not exist; this is a bug in aw, report it", t.exe, name)
	}
}

// runSpec parses args with spec and applies it: the generic engine.
func (c *checker) runSpec(spec *toolSpec, exe string, args []word, depth int) {
	if call := c.parseTool(spec, exe, args, depth); call != nil && !c.refused {
		c.applyTool(call)
	}
}

// valueRules read option values that hold a language of their own.
var valueRules = map[string]func(c *checker, exe string, u used){
	"gitconfig": func(c *checker, exe string, u used) {
		if !gitConfigSafe(u.val.text) {
			c.deniedArg(exe, u.as+" "+u.val.text, "a configuration value can run programs (core.pager, core.sshCommand, core.fsmonitor, core.hooksPath, alias.*=!…, filters, diff drivers); only presentation and identity keys such as user.name and color.* are accepted")
		}
	},
	"gitdir": func(c *checker, exe string, u used) {
		c.path(u.val, readAccess, exe, "git "+u.o.name()+" directory")
	},
	"gitworktree": func(c *checker, exe string, u used) {
		// A work tree other than the root's own lets git stage a file the
		// agent wrote at any path (--work-tree=sub add -f .agentic/x),
		// and check out into any directory.
		for _, d := range c.dirs {
			p := u.val.text
			if !filepath.IsAbs(p) && d != "" && d != "." {
				p = d + "/" + p
			}
			if res, err := c.ws.Jail.Resolve(p, readAccess); err == nil && !res.Outside && (res.Rel == "" || res.Rel == ".") {
				continue
			}
			c.path(u.val, writeAccess, exe, "git --work-tree directory")
			if !c.refused {
				c.deniedArg(exe, u.as, "a work tree other than the workspace root lets git stage and write files at paths the policy does not see (.agentic/ included); run git from the root")
			}
			return
		}
	},
	"gitexecpath": func(c *checker, exe string, u used) {
		if u.given {
			c.deniedArg(exe, u.as, "it chooses where git's own programs come from")
		}
	},
	"envname": func(c *checker, exe string, u used) {
		c.assign(u.val.text, exe)
	},
	"awkvar": func(c *checker, exe string, u used) {
		if name, ok := isAssignment(u.val.text); ok {
			c.assign(name, exe)
		}
	},
	"plus": func(c *checker, exe string, u used) {
		// less +cmd: only motions and searches; ! | s v E and the rest
		// run commands, write files or open other files.
		v := u.val.text
		if strings.Trim(v, "0123456789") == "" || v == "G" || v == "g" || v == "F" ||
			(strings.HasPrefix(v, "/") || strings.HasPrefix(v, "?")) && !strings.ContainsAny(v, "!|") {
			return
		}
		c.deniedArg(exe, u.as, "a start-up pager command can run a shell command (!, |), save a file (s) or open an editor (v); use +NUMBER, +G or +/pattern")
	},
}

// stdinInner checks xargs's command: the words it was given, with the
// arguments it reads from stdin appended (decided at run time). With -I or
// -i every word holding the replacement string is decided at run time.
func (c *checker) stdinInner(t *toolCall, ops []word) {
	if len(ops) == 0 {
		ops = []word{{text: "echo"}}
	}
	repl := ""
	for _, u := range t.opts {
		switch u.o.name() {
		case "-I":
			repl = u.val.text
		case "--replace":
			repl = "{}"
			if u.given && u.val.text != "" {
				repl = u.val.text
			}
		}
	}
	inner := make([]word, 0, len(ops)+1)
	for _, w := range ops {
		if repl != "" && strings.Contains(w.text, repl) {
			w.dynamic = "the input xargs reads replaces " + repl
		}
		inner = append(inner, w)
	}
	if repl == "" {
		inner = append(inner, word{text: "ARGS…", dynamic: stdinArgs})
	}
	c.command(inner, t.depth+1)
}

// shellRunner checks a shell named in commands.allow. A shell is a grant
// of a general interpreter (like node or python, which can run anything),
// so the allow list does not apply to what it runs; deny always does: its
// -c text is parsed and every command in it is checked against
// commands.deny, commands.denyPatterns and aw's built-in rules (protected
// paths, tool rules, human verbs). What cannot be read (a script file,
// stdin, syntax the parser does not read with confidence) is refused while
// deny rules are in force, since a denied program could hide in it.
func (c *checker) shellRunner(t *toolCall, ops []word) {
	exe := t.exe
	if t.has("-c") {
		if len(ops) == 0 {
			c.refuse(NestedCommand, exe, "", "`%s -c` has no command text; give the command after -c", exe)
			return
		}
		if ops[0].dynamic != "" {
			c.opaqueShell(exe, "its command text is decided at run time ("+ops[0].dynamic+")")
			return
		}
		c.nestedShell(exe, ops[0].text)
		return
	}
	if len(ops) == 0 {
		c.opaqueShell(exe, "without -c it reads its commands from stdin")
		return
	}
	script := ops[0]
	if c.allowedWorkspacePath(script.text) || !c.argRules {
		c.path(script, readAccess, exe, "script "+exe+" runs")
		return
	}
	c.refuse(NestedCommand, exe, "", "`%s %s` runs a script file the policy cannot read while deny rules are in force, so a denied program could run through it; pass the commands with -c 'COMMANDS' so they are checked, or %s", exe, script.text, c.allowHint("./"+strings.TrimPrefix(script.text, "./")))
}

// opaqueShell: what the shell runs cannot be read.
func (c *checker) opaqueShell(exe, why string) {
	if c.argRules {
		c.refuse(NestedCommand, exe, "", "%s is in commands.allow, but %s, so the policy cannot check it against the deny rules; pass the commands literally with -c 'COMMANDS'", exe, why)
	}
}

// nestedShell checks the text of sh -c as a shell line (the shell parses
// it the way it parses any line) under the shell's grant.
func (c *checker) nestedShell(exe, text string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		c.opaqueShell(exe, fmt.Sprintf("its command text does not parse as a shell line (%v)", err))
		return
	}
	saveShell, saveLine, saveGrant, saveV := c.shell, c.line, c.grant, c.v
	c.shell, c.line, c.grant = true, text, true
	c.stmts(f.Stmts)
	c.shell, c.line, c.grant = saveShell, saveLine, saveGrant
	if c.refused && !c.argRules && (c.v.Reason == UnsupportedSyntax || c.v.Reason == UnbalancedQuotes || c.v.Reason == NestedCommand) {
		// Unreadable text without deny rules: the grant covers it.
		saveV.Commands = c.v.Commands
		c.v, c.refused = saveV, false
	}
}

// sedHook: the script is the first operand unless -e or -f gave one; its
// e, w and W commands are refused and the files r and R read are checked;
// with -i every file operand is written.
func sedHook(c *checker, t *toolCall) {
	scripts := t.values("--expression")
	files := t.operands
	if len(scripts) == 0 && !t.has("--file") {
		if len(files) == 0 {
			return
		}
		scripts, files = files[:1], files[1:]
	}
	for _, s := range scripts {
		why, reads := sedDanger(s.text)
		if why != "" {
			c.deniedArg(t.exe, shellQuote(s.text), why)
			return
		}
		for _, r := range reads {
			if r != "/dev/stdin" {
				c.path(word{text: r}, readAccess, t.exe, "file the sed script reads")
			}
		}
	}
	access, what := readAccess, "file sed reads"
	if t.has("--in-place") {
		access, what = writeAccess, "file sed -i writes"
	}
	for _, u := range t.opts {
		// -iDIR/* keeps the backup in another directory (.git/hooks/*).
		if u.o.name() == "--in-place" && u.given && strings.Contains(u.val.text, "/") {
			c.deniedArg(t.exe, u.as, "a backup suffix with / writes the backup into another directory, which the policy does not check; use a plain suffix such as -i.bak")
			return
		}
	}
	for _, f := range files {
		if f.text != "-" {
			c.path(f, access, t.exe, what)
		}
	}
}

// awkHook: the program is the first operand unless -f, -e or -E gave it.
func awkHook(c *checker, t *toolCall) {
	programs := t.values("--source")
	ops := t.operands
	if len(programs) == 0 && !t.has("--file") && !t.has("--exec") && len(ops) > 0 {
		programs, ops = ops[:1], ops[1:]
	}
	for _, p := range programs {
		if why := awkDanger(p.text); why != "" {
			c.deniedArg(t.exe, shellQuote(p.text), why)
			return
		}
	}
	for _, f := range ops {
		if _, assign := isAssignment(f.text); !assign && f.text != "-" {
			c.path(f, readAccess, t.exe, "file awk reads")
		}
	}
}

// awkDanger finds what an awk program can do beyond reading its input.
func awkDanger(program string) string {
	p := strings.ReplaceAll(program, "||", "")
	switch {
	case strings.Contains(p, "system"):
		return "system() runs a shell command"
	case strings.Contains(p, "|"):
		return "a pipe to or from a command runs it in a shell"
	case strings.Contains(p, "@"):
		return "@load, @include and indirect calls (@f()) load code or call a function by a name built at run time"
	case awkPrintRedirect(program):
		return "print > file writes a file the policy does not check"
	case strings.Contains(p, "ARGV") || strings.Contains(p, "ARGC"):
		return "ARGV and ARGC choose the files awk reads, which the policy then cannot check; name the files as operands"
	case strings.Contains(p, "getline") && strings.Contains(p, "<"):
		return "getline < file reads a file the policy does not check"
	}
	return ""
}

// tarHook: extraction writes member paths the policy cannot see (one can
// land in .git/ or .agentic/), so only listing and --to-stdout extraction
// run; the archive (-f) is written when tar creates or adds; a remote
// archive (host:file) runs a remote shell.
func tarHook(c *checker, t *toolCall) {
	if t.has("--extract") && !t.has("--to-stdout") {
		c.deniedArg(t.exe, "-x", "extracting writes the archive's member paths, which the policy cannot see (a member can land in .git/ or .agentic/); list it with -t, extract one member to stdout with -xO, or ask a human to extract it")
		return
	}
	writes := t.has("--create", "--append", "--update", "--catenate", "--delete")
	for _, f := range t.values("--file") {
		if f.text == "-" {
			continue
		}
		if strings.ContainsRune(f.text, ':') && !t.has("--force-local") {
			c.deniedArg(t.exe, "-f "+f.text, "an archive named host:file is opened through a remote shell; give a local path (or --force-local)")
			return
		}
		if writes {
			c.path(f, writeAccess, t.exe, "archive tar writes")
		} else {
			c.path(f, readAccess, t.exe, "archive tar reads")
		}
	}
	if t.has("--remove-files") {
		for _, f := range t.operands {
			c.path(f, writeAccess, t.exe, "file tar --remove-files deletes")
		}
	}
}

// ddHook reads dd's key=value operands: if= is read, of= is written.
func ddHook(c *checker, t *toolCall) {
	for _, op := range t.operands {
		k, v, ok := strings.Cut(op.text, "=")
		if !ok {
			c.deniedArg(t.exe, op.text, "dd takes KEY=VALUE operands; give if=FILE, of=FILE, bs=…")
			return
		}
		switch k {
		case "if":
			c.path(word{text: v, dynamic: op.dynamic}, readAccess, t.exe, "file dd reads")
		case "of":
			c.path(word{text: v, dynamic: op.dynamic}, writeAccess, t.exe, "file dd writes")
		case "bs", "ibs", "obs", "cbs", "skip", "seek", "iseek", "oseek", "count", "conv", "iflag", "oflag", "status":
		default:
			c.deniedArg(t.exe, op.text, "aw's rule for dd does not know the operand "+k+"; an unknown one is refused rather than guessed")
			return
		}
		if c.refused {
			return
		}
	}
}

// lnHook: the link is written; a hard link to a protected file would
// make it writable through the link, so without -s the sources are
// checked as writes too (a symbolic link's target is only text: a write
// through it is checked where it lands).
func lnHook(c *checker, t *toolCall) {
	ops := t.operands
	sources := ops
	if dirs := t.values("--target-directory"); len(dirs) == 0 && len(ops) > 0 {
		dest := ops[len(ops)-1]
		if len(ops) == 1 {
			dest = word{text: filepath.Base(dest.text), dynamic: dest.dynamic}
		} else {
			sources = ops[:len(ops)-1]
		}
		c.path(dest, writeAccess, t.exe, "link ln writes")
	}
	if t.has("--symbolic") {
		return
	}
	for _, f := range sources {
		c.path(f, writeAccess, t.exe, "file ln links (a hard link makes it writable through the link)")
	}
}

// edHook: ed reads its commands from stdin and ! runs a shell command.
func edHook(c *checker, t *toolCall) {
	if c.allow[t.exe+" -"] {
		return
	}
	c.refuse(NestedCommand, t.exe, "", "%s reads its commands from stdin (a here-document or a pipe) and its ! command runs a shell command, so it is a runner the policy cannot read; edit files with `aw edit` or sed, or a human allows it with `aw config set commands.allow` naming %q", t.exe, t.exe+" -")
}

// linksHook: cp --link makes hard links (a protected source would become
// writable through its link) and install -d creates every operand, so
// their sources are checked as writes too.
func linksHook(c *checker, t *toolCall) {
	if !t.has("--link") && !t.has("--directory") {
		return
	}
	for _, f := range t.operands {
		c.path(f, writeAccess, t.exe, "file "+t.exe+" links or creates")
	}
}

// vimHook: vim reads keystrokes (and so ! commands) from a stdin that is
// not a terminal; in a shell line stdin can be a pipe or a here-document.
func vimHook(c *checker, t *toolCall) {
	if c.shell && !c.allow[t.exe+" -"] {
		c.refuse(NestedCommand, t.exe, "", "%s in a shell line reads keystrokes from its stdin, which the line can feed (a pipe, a here-document), and a keystroke can run a shell command; run it as an argv (its stdin is then empty), or a human allows it with `aw config set commands.allow` naming %q", t.exe, t.exe+" -")
	}
}

// npxHook: the first operand is the package (or, with -p, the command);
// its command must be allowed itself, and its arguments are checked.
func npxHook(c *checker, t *toolCall) {
	if len(t.operands) == 0 {
		return
	}
	first := t.operands[0]
	inner := append([]word{{text: packageCommand(first.text), dynamic: first.dynamic}}, t.operands[1:]...)
	c.command(inner, t.depth+1)
}

// manHook: a page named with a slash is a local file (man ./x.1), whose
// source can include any other file (.so .env).
func manHook(c *checker, t *toolCall) {
	for _, w := range t.operands {
		if strings.ContainsRune(w.text, '/') {
			c.deniedArg(t.exe, w.text, "man reads a name with a slash as a local page source, which can include any other file (.so) into what man shows; read the file with cat or less")
			return
		}
	}
}
