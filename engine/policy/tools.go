package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// A tool rule knows one program: which of its arguments run another command
// (unwrapped and checked like any command) and which of its options are
// known ways to run code or write files behind an allow list's back. These
// rules are always on, whatever the settings say; the list is documented
// in the package's doc.go. args excludes the executable itself.
type toolRule func(c *checker, exe string, args []word, depth int)

// tools is built on first use: package init runs on every aw call, and a
// var initializer would be a cycle (the rules check commands through it).
var (
	toolsOnce sync.Once
	tools     map[string]toolRule
)

// ruleFor is the tool rule of a program, nil for none.
func ruleFor(exe string) toolRule {
	toolsOnce.Do(func() {
		tools = map[string]toolRule{
			"env": envRule, "timeout": timeoutRule, "nice": niceRule, "nohup": nohupRule, "stdbuf": stdbufRule,
			"command": commandRule, "builtin": builtinRule, "exec": execRule, "time": timeRule,
			"find": findRule, "git": gitRule, "sed": sedRule, "gsed": sedRule,
			"awk": awkRule, "gawk": awkRule, "mawk": awkRule, "nawk": awkRule,
			"rg": rgRule, "sort": sortRule, "man": manRule, "less": lessRule, "more": lessRule, "most": lessRule,
			"tar": tarRule, "gtar": tarRule, "bsdtar": tarRule, "rsync": rsyncRule,
			"vim": vimRule, "vi": vimRule, "nvim": vimRule, "view": vimRule, "ex": vimRule, "vimdiff": vimRule,
			"emacs": emacsRule, "zip": zipRule, "scp": scpRule, "sftp": scpRule, "tee": teeRule,
			"npx": npxRule, "bunx": npxRule, "pnpx": npxRule, "uvx": npxRule,
			"npm": npmRule, "pnpm": npmRule, "yarn": npmRule, "bun": npmRule,
			"make": makeRule, "gmake": makeRule, "go": goRule, "aw": awRule,
		}
	})
	return tools[exe]
}

// deniedArg refuses a built-in argv trick.
func (c *checker) deniedArg(exe, arg, why string) {
	c.refuse(DeniedPattern, exe, "", "`%s %s` is refused by aw's built-in rules: %s", exe, arg, why)
}

// unreadable refuses a wrapper option the policy cannot follow.
func (c *checker) unreadable(exe, arg string) {
	c.refuse(NestedCommand, exe, "", "%s with the option %s runs a command the policy cannot read; run the inner command directly", exe, arg)
}

func isAssignment(s string) (string, bool) {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "", false
		}
	}
	return name, true
}

// wrapper walks a wrapper's options: takesValue names the options followed
// by a separate value, flags those that stand alone; "--x=" forms and
// bundled short values (-n10) are read too. It returns the index of the
// first non-option argument, or -1 after refusing an unknown option.
func (c *checker) wrapper(exe string, args []word, flags, takesValue string) int {
	fl, tv := strings.Fields(flags), strings.Fields(takesValue)
	has := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "--":
			return i + 1
		case !strings.HasPrefix(a, "-") || a == "-":
			return i
		case has(fl, a):
		case has(tv, a):
			i++
		default:
			long, _, eq := strings.Cut(a, "=")
			if eq && has(tv, long) {
				continue
			}
			if !strings.HasPrefix(a, "--") && len(a) > 2 && has(tv, a[:2]) {
				continue // -n10
			}
			c.unreadable(exe, a)
			return -1
		}
	}
	return len(args)
}

func (c *checker) inner(args []word, from, depth int) {
	if from >= 0 && from < len(args) {
		c.command(args[from:], depth+1)
	}
}

func envRule(c *checker, exe string, args []word, depth int) {
	i := c.wrapper(exe, args, "-i - --ignore-environment -0 --null -v --debug", "-u --unset")
	if i < 0 {
		return
	}
	for ; i < len(args); i++ {
		name, ok := isAssignment(args[i].text)
		if !ok {
			break
		}
		c.assign(name, exe)
	}
	c.inner(args, i, depth)
}

func timeoutRule(c *checker, exe string, args []word, depth int) {
	i := c.wrapper(exe, args, "--preserve-status --foreground -v --verbose", "-s --signal -k --kill-after")
	if i < 0 {
		return
	}
	c.inner(args, i+1, depth) // after the duration
}

func niceRule(c *checker, exe string, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i].text
		if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "0123456789") == "" {
			continue // nice -10
		}
		j := c.wrapper(exe, args[i:], "", "-n --adjustment")
		if j >= 0 {
			c.inner(args, i+j, depth)
		}
		return
	}
}

func nohupRule(c *checker, exe string, args []word, depth int) {
	c.inner(args, c.wrapper(exe, args, "", ""), depth)
}

func stdbufRule(c *checker, exe string, args []word, depth int) {
	c.inner(args, c.wrapper(exe, args, "", "-i -o -e --input --output --error"), depth)
}

func commandRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		if a.text == "-v" || a.text == "-V" {
			return // only describes the name
		}
	}
	c.inner(args, c.wrapper(exe, args, "-p", ""), depth)
}

func builtinRule(c *checker, exe string, args []word, depth int) {
	c.inner(args, 0, depth)
}

func execRule(c *checker, exe string, args []word, depth int) {
	c.inner(args, c.wrapper(exe, args, "-c -l -cl -lc", "-a"), depth)
}

func timeRule(c *checker, exe string, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i].text
		if a == "-o" || a == "--output" {
			if i+1 < len(args) {
				c.path(args[i+1], workspace.Write, exe, "output file of time")
			}
		} else if v, ok := strings.CutPrefix(a, "--output="); ok {
			c.path(word{text: v}, workspace.Write, exe, "output file of time")
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
	}
	c.inner(args, c.wrapper(exe, args, "-p --portability -v --verbose -q --quiet -a --append", "-f --format -o --output"), depth)
}

func findRule(c *checker, exe string, args []word, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			end := -1
			for j := i + 1; j < len(args); j++ {
				if args[j].text == ";" || args[j].text == "+" {
					end = j
					break
				}
			}
			if end < 0 || end == i+1 {
				c.unreadable(exe, a)
				return
			}
			c.command(args[i+1:end], depth+1)
			i = end
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			c.deniedArg(exe, a, "it writes a file the policy does not check; print to stdout instead")
		case "-delete":
			c.deniedArg(exe, a, "it deletes every match; delete files with `aw edit` so the change can be reviewed and rolled back")
		}
		if c.refused {
			return
		}
	}
}

// gitSafeConfig are the -c keys that only change presentation or identity.
var gitSafeConfig = []string{"user.name", "user.email", "color.", "core.quotepath", "init.defaultbranch", "advice.",
	"commit.gpgsign", "tag.gpgsign", "log.", "format.pretty", "diff.noprefix", "diff.renames", "merge.conflictstyle",
	"pull.rebase", "pull.ff", "push.default", "status.", "core.abbrev", "safe.bareRepository"}

func gitConfigSafe(kv string) bool {
	key, _, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	for _, s := range gitSafeConfig {
		s = strings.ToLower(s)
		if key == s || strings.HasSuffix(s, ".") && strings.HasPrefix(key, s) {
			return true
		}
	}
	return false
}

func gitRule(c *checker, exe string, args []word, depth int) {
	sub := ""
	for i := 0; i < len(args) && !c.refused; i++ {
		a := args[i].text
		long, val, eq := strings.Cut(a, "=")
		next := func() word {
			i++
			if i < len(args) {
				return args[i]
			}
			return word{}
		}
		global := sub == ""
		switch {
		case (global || sub == "clone") && (a == "-c" || a == "--config"), sub == "clone" && long == "--config" && eq:
			kv := val
			if !eq {
				kv = next().text
			}
			if !gitConfigSafe(kv) {
				c.deniedArg(exe, "-c "+kv, "a configuration value can run programs (core.pager, core.sshCommand, core.fsmonitor, core.hooksPath, alias.*=!…, filters, diff drivers); only presentation and identity keys such as user.name and color.* are accepted")
			}
		case global && strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--") && len(a) > 2:
			if !gitConfigSafe(a[2:]) {
				c.deniedArg(exe, a, "a configuration value can run programs")
			}
		case long == "--config-env":
			c.deniedArg(exe, a, "configuration taken from the environment can run programs")
		case long == "--exec-path" && eq:
			c.deniedArg(exe, a, "it chooses where git's own programs come from")
		case long == "--upload-pack" || long == "--receive-pack" || long == "--exec" || long == "--template" || long == "--extcmd" ||
			long == "--sendmail-cmd" || long == "--to-cmd" || long == "--cc-cmd" || long == "--header-cmd" || long == "--open-files-in-pager" || long == "--run":
			c.deniedArg(exe, a, "it names a program for git to run")
		case sub == "grep" && strings.HasPrefix(a, "-O"):
			c.deniedArg(exe, a, "it opens the matches in a program")
		case a == "-u" && (sub == "clone" || sub == "fetch" || sub == "pull" || sub == "ls-remote" || sub == "archive"):
			c.deniedArg(exe, a, "-u names the upload-pack program for git to run")
		case sub == "rebase" && (a == "-x" || strings.HasPrefix(a, "-x")), sub == "difftool" && (a == "-x" || a == "-t" || long == "--tool"), sub == "mergetool" && (a == "-t" || long == "--tool"):
			c.deniedArg(exe, a, "it runs a command or tool for each step")
		case global && (a == "-C" || a == "--git-dir" || a == "--work-tree"):
			c.path(next(), workspace.Read, exe, "git "+a+" directory")
		case global && (long == "--git-dir" || long == "--work-tree") && eq:
			c.path(word{text: val}, workspace.Read, exe, "git "+long+" directory")
		case global && !eq && (a == "--namespace" || a == "--attr-source" || a == "--super-prefix"):
			next() // its value is not the subcommand: later -c options are still git's
		case strings.HasPrefix(a, "ext::") || strings.HasPrefix(a, "fd::"):
			c.deniedArg(exe, a, "the ext:: and fd:: transports run a command")
		case strings.HasPrefix(a, "-"):
		case global:
			sub = strings.ToLower(a)
			rest := args[i+1:]
			switch {
			case sub == "config" && gitConfigWrites(rest):
				c.deniedArg(exe, "config …", "it changes git configuration (a hook or program can hide in it); read values with `git config --get` and leave changes to a human")
			case sub == "submodule" && hasWord(rest, "foreach"), sub == "bisect" && hasWord(rest, "run"),
				sub == "filter-branch", sub == "filter-repo", sub == "daemon", sub == "instaweb", sub == "web--browse", sub == "credential",
				sub == "upload-pack", sub == "receive-pack", sub == "shell", sub == "send-email", sub == "hook", sub == "fsmonitor--daemon", sub == "remote-ext":
				c.refuse(NestedCommand, exe, "", "`git %s` runs commands or programs the policy cannot see into; run those commands directly", sub)
			}
		}
	}
}

func hasWord(args []word, s string) bool {
	for _, a := range args {
		if a.text == s {
			return true
		}
	}
	return false
}

// gitConfigWrites reports whether `git config ARGS` can change a value.
func gitConfigWrites(args []word) bool {
	positional := 0
	for _, a := range args {
		t := a.text
		switch {
		case t == "--get" || t == "--get-all" || t == "--get-regexp" || t == "--list" || t == "-l" || t == "--get-urlmatch" ||
			t == "get" || t == "list" || strings.HasPrefix(t, "--show") || t == "--name-only":
			return false
		case strings.HasPrefix(t, "-"):
		default:
			positional++
		}
	}
	return positional != 1 // `git config key` only reads
}

// sedRule refuses sed scripts that run commands (e, s///e) or write files
// (w, W, s///w); a script file (-f) cannot be read. With -i the input
// files are written, so they are checked like tee's.
func sedRule(c *checker, exe string, args []word, depth int) {
	var scripts []string
	var files []word
	explicit, inPlace := false, false
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1].text)
			}
			explicit = true
			i++
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
			explicit = true
		case a == "-f" || strings.HasPrefix(a, "--file") || strings.HasPrefix(a, "-f"):
			c.unreadable(exe, a+" (a script file)")
			return
		case strings.HasPrefix(a, "-e") && len(a) > 2:
			scripts = append(scripts, a[2:])
			explicit = true
		case a == "-l" || a == "--line-length":
			i++
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="),
			!strings.HasPrefix(a, "--") && strings.HasPrefix(a, "-") && strings.ContainsRune(a, 'i'): // -i, -i.bak, -ni
			inPlace = true
		case strings.HasPrefix(a, "-") && a != "-":
		case !explicit:
			scripts = append(scripts, a)
			explicit = true
		default:
			files = append(files, args[i])
		}
	}
	for _, s := range scripts {
		if why := sedDanger(s); why != "" {
			c.deniedArg(exe, shellQuote(s), why)
			return
		}
	}
	if inPlace {
		for _, f := range files {
			c.path(f, workspace.Write, exe, "file sed -i writes")
		}
	}
}

// sedDanger reads a sed script far enough to find e, w, W, r-less writes
// and the e/w flags of s; a script it cannot follow is refused.
func sedDanger(s string) string {
	i := 0
	skipAddr := func() {
		for i < len(s) {
			ch := s[i]
			switch {
			case ch >= '0' && ch <= '9' || ch == '$' || ch == ',' || ch == '!' || ch == '~' || ch == '+' || ch == ' ' || ch == '\t':
				i++
			case ch == '/' || ch == '\\':
				d := byte('/')
				if ch == '\\' && i+1 < len(s) {
					i++
					d = s[i]
				}
				i++
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				i++
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
			default:
				return
			}
		}
	}
	toEOL := func() {
		for i < len(s) && s[i] != '\n' {
			i++
		}
	}
	for i < len(s) {
		ch := s[i]
		if ch == ';' || ch == '\n' || ch == ' ' || ch == '\t' || ch == '{' || ch == '}' {
			i++
			continue
		}
		skipAddr()
		if i >= len(s) {
			return ""
		}
		cmd := s[i]
		i++
		switch cmd {
		case 'e':
			return "the sed command e runs a shell command"
		case 'w', 'W':
			return "the sed command " + string(cmd) + " writes a file the policy does not check"
		case 's', 'y':
			if i >= len(s) {
				return "the sed script cannot be read"
			}
			d := s[i]
			if d == '\n' || d == '\\' {
				return "the sed script cannot be read"
			}
			i++
			for part := 0; part < 2; part++ {
				for i < len(s) && s[i] != d {
					if s[i] == '\\' {
						i++
					}
					i++
				}
				if i >= len(s) {
					return "the sed script cannot be read"
				}
				i++
			}
			if cmd == 'y' {
				continue
			}
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch s[i] {
				case 'e':
					return "the s///e flag runs the pattern space as a shell command"
				case 'w':
					return "the s///w flag writes a file the policy does not check"
				}
				i++
			}
		case 'a', 'i', 'c', 'r', 'R', ':', 'b', 't', 'T', 'v', 'l', 'L', 'q', 'Q':
			toEOLorSemi := cmd == 'b' || cmd == 't' || cmd == 'T' || cmd == 'v' || cmd == 'l' || cmd == 'q' || cmd == 'Q' || cmd == 'L'
			if toEOLorSemi {
				for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
					i++
				}
			} else {
				toEOL()
			}
		case 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F':
		case '#':
			toEOL()
		default:
			return "the sed script cannot be read with confidence"
		}
	}
	return ""
}

// awkRule refuses programs that run commands (system(), pipes, getline
// from a command), write files (print > file) or load extensions.
func awkRule(c *checker, exe string, args []word, depth int) {
	program := ""
	for i := 0; i < len(args); i++ {
		a := args[i].text
		switch {
		case a == "-f" || a == "--file" || strings.HasPrefix(a, "--file=") || a == "-l" || a == "--load" || a == "-E" || a == "--exec" || a == "-i" || a == "--include":
			c.unreadable(exe, a+" (a program or extension file)")
			return
		case a == "-F" || a == "-v" || a == "--assign" || a == "--field-separator":
			i++
			if a == "-v" || a == "--assign" {
				if i < len(args) {
					if name, ok := isAssignment(args[i].text); ok {
						c.assign(name, exe)
					}
				}
			}
		case a == "--":
		case strings.HasPrefix(a, "-") && program == "":
		case program == "":
			program = a
			i = len(args)
		}
	}
	p := strings.ReplaceAll(program, "||", "")
	switch {
	case strings.Contains(p, "system"):
		c.deniedArg(exe, shellQuote(program), "system() runs a shell command")
	case strings.Contains(p, "|"):
		c.deniedArg(exe, shellQuote(program), "a pipe to or from a command runs it in a shell")
	case strings.Contains(p, "@load") || strings.Contains(p, "@include"):
		c.deniedArg(exe, shellQuote(program), "it loads code from a file")
	case awkWrite().MatchString(p):
		c.deniedArg(exe, shellQuote(program), "print > file writes a file the policy does not check")
	}
}

func rgRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		if l, _, _ := strings.Cut(a.text, "="); l == "--pre" || l == "--pre-glob" || l == "--hostname-bin" {
			c.deniedArg(exe, a.text, "it runs a program on every file searched")
			return
		}
	}
}

func sortRule(c *checker, exe string, args []word, depth int) {
	for i, a := range args {
		l, v, eq := strings.Cut(a.text, "=")
		switch {
		case l == "--compress-program":
			c.deniedArg(exe, a.text, "it runs a program on temporary files")
		case a.text == "-o" || a.text == "--output":
			if i+1 < len(args) {
				c.path(args[i+1], workspace.Write, exe, "output file of sort")
			}
		case l == "--output" && eq:
			c.path(word{text: v}, workspace.Write, exe, "output file of sort")
		case strings.HasPrefix(a.text, "-o") && len(a.text) > 2:
			c.path(word{text: a.text[2:]}, workspace.Write, exe, "output file of sort")
		}
		if c.refused {
			return
		}
	}
}

func manRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		if l == "-P" || l == "--pager" || l == "-H" || l == "--html" || l == "--browser" || strings.HasPrefix(a.text, "-P") || l == "-X" || l == "--gxditview" {
			c.deniedArg(exe, a.text, "it names a program for man to run")
			return
		}
	}
}

func lessRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		if strings.Contains(a.text, "!") || strings.HasPrefix(a.text, "+") && strings.Contains(a.text, "|") || l == "-k" || l == "--lesskey-file" || l == "--lesskey-src" {
			c.deniedArg(exe, a.text, "a pager command (!, |) or key file can run a shell command")
			return
		}
	}
}

func tarRule(c *checker, exe string, args []word, depth int) {
	for i, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		switch {
		case l == "--to-command" || l == "--use-compress-program" || l == "--checkpoint-action" || l == "--info-script" || l == "--new-volume-script" || l == "--rsh-command" || l == "--rmt-command" || l == "--index-file" && false:
			c.deniedArg(exe, a.text, "it names a program for tar to run")
		case strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.ContainsAny(a.text, "IF"):
			c.deniedArg(exe, a.text, "-I and -F name a program for tar to run")
		case i == 0 && !strings.HasPrefix(a.text, "-") && strings.ContainsAny(a.text, "IF"):
			c.deniedArg(exe, a.text, "I and F name a program for tar to run")
		}
		if c.refused {
			return
		}
	}
}

func rsyncRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		if l == "--rsh" || l == "--rsync-path" || l == "-e" || strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "--") && strings.ContainsRune(a.text, 'e') {
			c.deniedArg(exe, a.text, "it names a program for rsync to run")
			return
		}
	}
}

func vimRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		t := a.text
		if t == "-c" || t == "--cmd" || t == "-S" || t == "-u" || t == "-U" || strings.HasPrefix(t, "+") && strings.Trim(t[1:], "0123456789") != "" || strings.HasPrefix(t, "-c") && len(t) > 2 {
			c.deniedArg(exe, t, "an editor command can run a shell command")
			return
		}
	}
}

func emacsRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		switch l {
		case "--eval", "-l", "--load", "-f", "--funcall", "--script", "-x", "--batch", "-batch", "--exec":
			c.deniedArg(exe, a.text, "it evaluates Lisp that can run any program")
			return
		}
	}
}

func zipRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		if l == "-TT" || l == "--unzip-command" {
			c.deniedArg(exe, a.text, "it names a program for zip to run")
			return
		}
	}
}

func scpRule(c *checker, exe string, args []word, depth int) {
	for i, a := range args {
		t := a.text
		opt := ""
		switch {
		case t == "-S" || strings.HasPrefix(t, "-S") || t == "-F" || strings.HasPrefix(t, "-F") || t == "-J":
			c.deniedArg(exe, t, "it names a program or configuration that can run a command")
			return
		case t == "-o" && i+1 < len(args):
			opt = args[i+1].text
		case strings.HasPrefix(t, "-o"):
			opt = t[2:]
		}
		o := strings.ToLower(opt)
		if strings.Contains(o, "proxycommand") || strings.Contains(o, "localcommand") || strings.Contains(o, "knownhostscommand") || strings.Contains(o, "proxyjump") || strings.Contains(o, "match") {
			c.deniedArg(exe, "-o "+opt, "this ssh option runs a command")
			return
		}
	}
}

func teeRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		if strings.HasPrefix(a.text, "-") && a.text != "-" {
			continue
		}
		c.path(a, workspace.Write, exe, "file tee writes")
	}
}

// npxRule treats package runners as wrappers: the package's command must
// itself be allowed (npx downloads and runs code).
func npxRule(c *checker, exe string, args []word, depth int) {
	i := 0
	for ; i < len(args); i++ {
		t := args[i].text
		l, _, _ := strings.Cut(t, "=")
		switch {
		case t == "-y" || t == "--yes" || t == "--no" || t == "--no-install" || t == "-q" || t == "--quiet" || t == "--prefer-offline" || t == "--offline":
		case t == "-p" || t == "--package" || t == "--from" || t == "--with":
			i++
		case l == "--package" || l == "--from" || l == "--with":
		case t == "-c" || l == "--call" || l == "--shell":
			c.unreadable(exe, t)
			return
		case t == "--":
			i++
			goto run
		case strings.HasPrefix(t, "-"):
			c.unreadable(exe, t)
			return
		default:
			goto run
		}
	}
run:
	if i < len(args) {
		inner := append([]word{{text: packageCommand(args[i].text), dynamic: args[i].dynamic}}, args[i+1:]...)
		c.command(inner, depth+1)
	}
}

// packageCommand turns "@scope/name@1.2" into "name".
func packageCommand(p string) string {
	if strings.HasPrefix(p, "@") {
		if j := strings.IndexByte(p, '/'); j >= 0 {
			p = p[j+1:]
		}
	}
	if j := strings.IndexByte(p, '@'); j > 0 {
		p = p[:j]
	}
	return p
}

func npmRule(c *checker, exe string, args []word, depth int) {
	sub := -1
	for i, a := range args {
		l, _, _ := strings.Cut(a.text, "=")
		switch l {
		case "--script-shell", "--shell", "--node-options", "--editor", "--browser", "--git", "--viewer", "--userconfig", "--globalconfig", "--ignore-scripts=false":
			c.deniedArg(exe, a.text, "it names a program or configuration for "+exe+" to run")
			return
		}
		if sub < 0 && !strings.HasPrefix(a.text, "-") {
			sub = i
		}
	}
	if sub < 0 {
		return
	}
	switch args[sub].text {
	case "exec", "x", "dlx":
		npxRule(c, exe+" "+args[sub].text, args[sub+1:], depth)
	case "config", "set":
		if args[sub].text == "set" || hasWord(args[sub+1:], "set") || hasWord(args[sub+1:], "edit") || hasWord(args[sub+1:], "delete") {
			c.deniedArg(exe, "config set", "it changes configuration outside the workspace (a script shell can hide there); leave it to a human")
		}
	}
}

func makeRule(c *checker, exe string, args []word, depth int) {
	for _, a := range args {
		name, isVar := isAssignment(a.text)
		l, _, _ := strings.Cut(a.text, "=")
		if isVar && (name == "SHELL" || name == ".SHELLFLAGS" || name == "MAKESHELL") || l == "--eval" || a.text == "-E" {
			c.deniedArg(exe, a.text, "it changes the shell or the rules make runs")
			return
		}
		if isVar {
			c.assign(name, exe)
		}
	}
}

func goRule(c *checker, exe string, args []word, depth int) {
	for i, a := range args {
		l, _, _ := strings.Cut(strings.TrimPrefix(a.text, "-"), "=")
		if l == "-exec" || l == "-toolexec" || l == "exec" || l == "toolexec" {
			c.deniedArg(exe, a.text, "it names a program for go to run")
			return
		}
		if a.text == "env" && i+1 < len(args) {
			for _, b := range args[i+1:] {
				if b.text == "-w" || b.text == "-u" {
					c.deniedArg(exe, "env "+b.text, "it changes go's configuration outside the workspace (GOFLAGS can hide a -toolexec); leave it to a human")
					return
				}
			}
		}
	}
}

// awRule refuses aw's own human verbs inside a command.
func awRule(c *checker, exe string, args []word, depth int) {
	// cobra accepts flags anywhere and strips a flag's value without
	// knowing the flag ("aw --input x approval accept", "aw approval -o
	// json accept"), so positions are not trusted: among the first three
	// non-flag words (the noun, after at most two stripped values), a
	// human noun followed anywhere later by its human verb is refused.
	var pos []string
	for _, a := range args {
		if !strings.HasPrefix(a.text, "-") || a.text == "-" {
			pos = append(pos, a.text)
		}
	}
	later := func(j int, verbs ...string) bool {
		for _, w := range pos[j+1:] {
			for _, v := range verbs {
				if w == v {
					return true
				}
			}
		}
		return false
	}
	for j := 0; j < len(pos) && j < 3; j++ {
		noun := pos[j]
		var verb string
		switch {
		case noun == "prompt":
		case noun == "approval" && later(j, "accept", "deny", "token"):
		case noun == "config" && later(j, "set"):
		case noun == "call" && later(j, "approval", "config", "prompt"):
		default:
			continue
		}
		for _, w := range pos[j+1:] {
			switch w {
			case "accept", "deny", "token", "set", "approval", "config", "prompt":
				verb = w
			}
			if verb != "" {
				break
			}
		}
		c.refuse(DeniedPattern, exe, "", "`aw %s %s` is a human verb: it never runs inside a command, however it is wrapped; ask the human to run it in their own terminal", noun, verb)
		return
	}
}

var awkWrite = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`print[f]?[^;{}]*>`) })
