package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A toolSpec is one program's rule as data: its options (read from a small
// table, one option a line), how it reads its argv, what its operands are,
// and the argv lines it must allow and must refuse. One generic engine
// (parseTool, applyTool) reads every tool's argv the way getopt_long does;
// a tool whose arguments hold a language (a sed script, an awk program, a
// git configuration key, dd's key=value operands) adds a hook that reads
// that language, never its own option walk.
//
// The option table, one option per line:
//
//	-o|--output=FILE   write   why it matters (optional)
//
// names joined by |, then =X (takes a value) or [=X] (an optional value:
// attached to a short option, after = for a long one), then an effect:
//
//	(none)  changes nothing outside the tool's own output
//	read    the value is a path the tool reads: checked through the jail
//	write   the value is a path the tool writes: checked as a write
//	wdir    the value is a directory the tool writes into: checked as a write
//	target  like wdir, and every operand becomes a source that is read
//	run     the option makes the tool run a program or command: refused
//	script  the tool loads program text or configuration from the value
//	        (or from stdin): it becomes a runner (nested-command)
//	nested  the option sends the inner command somewhere the policy does
//	        not follow (env -S, env -C): nested-command
//	refuse  refused with the reason given (a deletion, an unsafe mode)
//	check:NAME  the value is read by the named value rule (git -c k=v)
//	chdir   the tool runs in the directory the value names (go -C, make -C):
//	        checked as a write, and the paths after it are checked from there
//	rest    the words after it belong to what the tool runs (go test -args)
//	names   the tool opens files whose names it reads from a file (tar -T,
//	        rsync --files-from, git --pathspec-from-file) or finds through
//	        one (less -t and vim -t through a tags file, vim -q through an
//	        error file): refused, since those names are not on the line
//
// A short name of two letters (-TT) is an option of its own: in a bundle
// the longest name wins (zip -TTcmd is -TT cmd), the reading that can run
// or write.
//
// In expression mode (find) names are single-dash words and = means one
// value, == two; effect inner means the words up to ; or + are a command.
type toolSpec struct {
	names   []string // program basenames the rule applies to
	mode    parseMode
	opts    string // the option table
	abbrev  bool   // long options may be abbreviated to a unique prefix (GNU getopt_long, git parse-options)
	numbers bool   // -NUM is an option (nice -10, head -5, git log -3)
	// stopAtOperand ends the options at the first operand in goFlags mode
	// (go run PKG ARGS: the rest belong to the program).
	stopAtOperand bool
	// stopWords end the options when the first operand is one of them
	// (npm exec: the rest is read by another rule).
	stopWords []string
	// dashLong: a single-dash word is a long option first (emacs -eval).
	dashLong bool
	// negate adds --no-X for every --X and --X for every --no-X.
	negate bool
	plus   effect // what an operand starting with + means (vim +cmd, less +cmd); 0: an operand
	// operands says what the words after the options are, in order; the
	// last kind repeats: "read", "write", "arg", "inner" (the rest is a
	// command), "duration" (one plain word, then what follows), "env"
	// (NAME=value words, then an inner command), "stdin-inner" (a command
	// whose further arguments come from stdin), "sources-write" (every
	// operand read, the last written: cp), "script-or-inner" (a shell).
	operands []string
	hook     string // the tool's language, read after the generic checks (hookFor)
	// unknown is what an option the table does not know means: refused
	// with this reason (default: denied-pattern, or nested-command for a
	// tool whose operands are a command). Fail closed.
	allow  []string // argv lines that must be allowed (checked by the rule test)
	refuse []string // argv lines that must be refused; "reason: line" also checks the reason
	why    string   // one line on what this tool can do behind an allow list's back

	parsed *optTable // built on first use
	err    error     // the table does not parse: every use is refused
}

type parseMode uint8

const (
	gnu        parseMode = iota // options anywhere until --, operands in between (getopt_long with permutation)
	posix                       // options end at the first operand (getopt with "+", wrappers)
	oldTar                      // tar: a first word without - is a bundle of option letters
	expression                  // find: global options, paths, then an expression of single-dash primaries
	exact                       // git's own global options: no bundling, no abbreviation, end at the subcommand
	goFlags                     // Go's flag package: -name or --name, =value or the next word, booleans take =true; no bundling, no abbreviation
)

type effect uint8

const (
	plain effect = iota
	eRead
	eWrite
	eWdir
	eTarget
	eRun
	eScript
	eNested
	eRefuse
	eCheck
	eInner
	eChdir // the value is the directory the tool runs in: checked as a write, and later paths are read from it
	eRest  // the words after it are the arguments of what the tool runs (go test -args): not options
	eNames // the tool opens files whose names it reads from a file (a list, a tags or error file) or stdin
)

var effectNames = map[string]effect{"read": eRead, "write": eWrite, "wdir": eWdir, "target": eTarget, "run": eRun,
	"script": eScript, "nested": eNested, "refuse": eRefuse, "inner": eInner,
	"chdir": eChdir, "rest": eRest, "names": eNames}

type argKind uint8

const (
	noArg argKind = iota
	required
	optional
	twoArgs // find -fprintf FILE FORMAT
)

// optSpec is one row of an option table.
type optSpec struct {
	short []byte   // -o
	multi []string // -TT: a two-letter short name
	long  []string // output (without the dashes; single-dash words in expression mode)
	arg   argKind
	eff   effect
	check string // value rule name for check:NAME
	why   string
}

// name is the option's canonical spelling, the one messages and hooks use.
func (o *optSpec) name() string {
	if len(o.long) > 0 {
		if len(o.long[0]) == 1 {
			return "-" + o.long[0] // go's -o, written --o in its table
		}
		return "--" + o.long[0]
	}
	if len(o.short) == 0 && len(o.multi) > 0 {
		return "-" + o.multi[0]
	}
	return "-" + string(o.short[0])
}

type optTable struct {
	short map[byte]*optSpec
	multi map[string]*optSpec // two-letter short names
	long  map[string]*optSpec
	longs []string // sorted, for prefix search
}

// table parses the option table once; an error makes the rule refuse
// every use (a broken rule fails closed, and its test names the line).
func (t *toolSpec) table() (*optTable, error) {
	if t.parsed != nil || t.err != nil {
		return t.parsed, t.err
	}
	tab := &optTable{short: map[byte]*optSpec{}, multi: map[string]*optSpec{}, long: map[string]*optSpec{}}
	opts := t.opts
	if t.negate {
		opts = negations(opts + "\n")
	}
	for n, line := range strings.Split(opts, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		o, err := parseOptLine(line, t.mode == expression)
		if err == nil {
			err = tab.add(o)
		}
		if err != nil {
			t.err = fmt.Errorf("%s rule, option line %d %q: %v", t.names[0], n+1, line, err)
			return nil, t.err
		}
	}
	for l := range tab.long {
		tab.longs = append(tab.longs, l)
	}
	sort.Strings(tab.longs)
	t.parsed = tab
	return tab, nil
}

func parseOptLine(line string, expr bool) (*optSpec, error) {
	fields := strings.Fields(line)
	names := fields[0]
	o := &optSpec{}
	if i := strings.Index(names, "[="); i >= 0 {
		o.arg, names = optional, names[:i]
	} else if i := strings.Index(names, "=="); i >= 0 && expr {
		o.arg, names = twoArgs, names[:i]
	} else if i := strings.IndexByte(names, '='); i >= 0 {
		o.arg, names = required, names[:i]
	}
	for _, n := range strings.Split(names, "|") {
		switch {
		case expr && strings.HasPrefix(n, "-") && len(n) > 1, strings.HasPrefix(n, "--") && len(n) > 2:
			o.long = append(o.long, strings.TrimLeft(n, "-"))
		case len(n) == 2 && n[0] == '-':
			o.short = append(o.short, n[1])
		case len(n) == 3 && n[0] == '-' && n[1] != '-':
			o.multi = append(o.multi, n[1:])
		default:
			return nil, fmt.Errorf("%q is not an option name (-x or --long)", n)
		}
	}
	if len(fields) > 1 {
		e := fields[1]
		switch {
		case strings.HasPrefix(e, "check:"):
			o.eff, o.check = eCheck, strings.TrimPrefix(e, "check:")
		case effectNames[e] != 0:
			o.eff = effectNames[e]
		default:
			return nil, fmt.Errorf("unknown effect %q", e)
		}
		o.why = strings.Join(fields[2:], " ")
	}
	if (o.eff == eWrite || o.eff == eRead || o.eff == eWdir || o.eff == eTarget || o.eff == eCheck || o.eff == eChdir) && o.arg == noArg {
		return nil, fmt.Errorf("effect %s needs a value (=X)", fields[1])
	}
	return o, nil
}

func (tab *optTable) add(o *optSpec) error {
	for _, s := range o.short {
		if tab.short[s] != nil {
			return fmt.Errorf("-%c is listed twice", s)
		}
		tab.short[s] = o
	}
	for _, m := range o.multi {
		if tab.multi[m] != nil {
			return fmt.Errorf("-%s is listed twice", m)
		}
		tab.multi[m] = o
	}
	for _, l := range o.long {
		if tab.long[l] != nil {
			return fmt.Errorf("--%s is listed twice", l)
		}
		tab.long[l] = o
	}
	return nil
}

// lookupLong finds a long option the way getopt_long does: an exact name,
// else the one option every name with that prefix belongs to. An
// ambiguous prefix is an error (the tool itself would stop), and so is an
// unknown name.
func (tab *optTable) lookupLong(name string, abbrev bool) (*optSpec, string) {
	if o := tab.long[name]; o != nil {
		return o, ""
	}
	if !abbrev || name == "" {
		return nil, "unknown"
	}
	i := sort.SearchStrings(tab.longs, name)
	var found *optSpec
	var full []string
	for ; i < len(tab.longs) && strings.HasPrefix(tab.longs[i], name); i++ {
		o := tab.long[tab.longs[i]]
		if found != nil && o != found {
			full = append(full, "--"+tab.longs[i])
			return nil, "ambiguous"
		}
		found = o
		full = append(full, "--"+tab.longs[i])
	}
	if found == nil {
		return nil, "unknown"
	}
	return found, ""
}

// used is one option as the tool will read it.
type used struct {
	o     *optSpec
	as    string // how it was written (-oFILE, --outp=FILE)
	val   word   // the first value; find's second (-fprintf FILE FORMAT) is a format, read by no rule
	given bool   // a value was given
}

// toolCall is one parsed invocation: what the hooks read.
type toolCall struct {
	spec     *toolSpec
	exe      string
	opts     []used
	operands []word
	inner    []word // the command in a find -exec (expression mode collects several)
	depth    int
}

// add records an option as given.
func (t *toolCall) add(u used) {
	t.opts = append(t.opts, u)
	if optionUse != nil {
		optionUse(u.o)
	}
}

// optionUse, set only by a test, sees every option row a call reads (the
// test that every table row is needed by some example).
var optionUse func(*optSpec)

// has reports whether the option with canonical name n was given.
func (t *toolCall) has(names ...string) bool {
	for _, u := range t.opts {
		for _, n := range names {
			if u.o.name() == n {
				return true
			}
		}
	}
	return false
}

// values are the values given to the option named n, in order.
func (t *toolCall) values(n string) []word {
	var out []word
	for _, u := range t.opts {
		if u.o.name() == n && u.given {
			out = append(out, u.val)
		}
	}
	return out
}

func hasInner(t *toolSpec) bool {
	for _, k := range t.operands {
		switch k {
		case "inner", "env", "stdin-inner", "script-or-inner":
			return true
		}
	}
	return false
}

// unknownOption refuses an option the rule does not know: guessing would
// let a tool read what the policy did not.
func (c *checker) unknownOption(t *toolSpec, exe, as, what string) {
	reason := DeniedPattern
	if hasInner(t) {
		reason = NestedCommand
	}
	if what == "ambiguous" {
		c.refuse(reason, exe, "", "`%s %s` is refused: %s is an abbreviation of more than one option of %s, so the policy cannot know which one %s would read; write the option's full name", exe, as, as, exe, exe)
		return
	}
	c.refuse(reason, exe, "", "`%s %s` is refused: aw's rule for %s does not know the option %s, and %s has options that run programs or write files, so an unknown one is refused rather than guessed; use a listed option (see `aw policy check-command`), or ask a human to run it", exe, as, exe, as, exe)
}

// parseTool reads args (the words after the executable) the way the tool
// does. It returns nil after refusing.
func (c *checker) parseTool(t *toolSpec, exe string, args []word, depth int) *toolCall {
	tab, err := t.table()
	if err != nil {
		c.refuse(NotAllowed, exe, "", "aw's rule for %s cannot be read (%v); this is a bug in aw, report it", exe, err)
		return nil
	}
	call := &toolCall{spec: t, exe: exe, depth: depth}
	if t.mode == expression {
		return c.parseExpression(t, tab, call, args)
	}
	next := func(i *int) (word, bool) {
		if *i+1 < len(args) {
			*i++
			return args[*i], true
		}
		return word{}, false
	}
	missing := func(as string) *toolCall {
		c.refuse(DeniedPattern, exe, "", "`%s %s` is missing the option's value; give it", exe, as)
		return nil
	}
	// value gives u the value written after "=", or the next word when the
	// option requires one; false after refusing a missing value.
	value := func(u *used, i *int, val string, eq bool) bool {
		switch {
		case eq:
			u.val, u.given = word{text: val}, true
		case u.o.arg == required:
			v, ok := next(i)
			if !ok {
				missing(u.as)
				return false
			}
			u.val, u.given = v, true
		}
		return true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		s := a.text
		if a.dynamic != "" && strings.HasPrefix(s, "-") {
			// The checker refuses dynamic words for ruled tools before
			// this; a word that is only partly known is not an option
			// the table can read.
			c.unknownOption(t, exe, s, "unknown")
			return nil
		}
		switch {
		case s == "--" && t.mode != exact:
			call.operands = append(call.operands, args[i+1:]...)
			return call
		case t.mode == goFlags && strings.HasPrefix(s, "-") && s != "-":
			name, val, eq := strings.Cut(strings.TrimPrefix(s[1:], "-"), "=")
			o := tab.long[name]
			if o == nil {
				c.unknownOption(t, exe, s, "unknown")
				return nil
			}
			u := used{o: o, as: s}
			if !value(&u, &i, val, eq) {
				return nil
			}
			call.add(u)
			if o.eff == eRest {
				// The words after go test -args are the test binary's:
				// they are not go's options, but the binary still reads
				// its own -test.* flags among them.
				for i++; i < len(args); i++ {
					name, val, eq := strings.Cut(strings.TrimPrefix(args[i].text[min(1, len(args[i].text)):], "-"), "=")
					o := tab.long[name]
					if !strings.HasPrefix(args[i].text, "-") || !strings.HasPrefix(name, "test.") {
						call.operands = append(call.operands, args[i])
						continue
					}
					if o == nil {
						c.unknownOption(t, exe, args[i].text, "unknown")
						return nil
					}
					u := used{o: o, as: args[i].text}
					if eq {
						u.val, u.given = word{text: val}, true
					} else if o.arg == required {
						v, ok := next(&i)
						if !ok {
							return missing(u.as)
						}
						u.val, u.given = v, true
					}
					call.add(u)
				}
				return call
			}
			continue
		case t.mode == goFlags:
			call.operands = append(call.operands, a)
			if t.stopAtOperand {
				call.operands = append(call.operands, args[i+1:]...)
				return call
			}
			continue
		case t.plus != plain && strings.HasPrefix(s, "+") && len(s) > 1:
			if strings.Trim(s[1:], "0123456789") == "" {
				continue // +LINE
			}
			call.opts = append(call.opts, used{o: &optSpec{long: []string{"+"}, eff: t.plus, arg: required, check: "plus", why: "a start-up editor command can run a shell command; open the file and go to a line with +NUMBER"}, as: s, val: word{text: s[1:]}, given: true})
			continue
		case !strings.HasPrefix(s, "-") || s == "-":
			if i == 0 && t.mode == oldTar && s != "-" {
				if c.oldTarBundle(t, tab, call, args, &i); c.refused {
					return nil
				}
				continue
			}
			if t.mode == gnu {
				call.operands = append(call.operands, a)
				if len(call.operands) == 1 && slices.Contains(t.stopWords, s) {
					call.operands = append(call.operands, args[i+1:]...)
					return call
				}
				continue
			}
			call.operands = append(call.operands, args[i:]...)
			return call
		case t.numbers && len(s) > 1 && strings.Trim(s[1:], "0123456789") == "":
			continue
		case t.dashLong && len(s) > 2 && s[1] != '-':
			name, val, eq := strings.Cut(s[1:], "=")
			o, why := tab.lookupLong(name, t.abbrev)
			if o == nil {
				c.unknownOption(t, exe, s, why)
				return nil
			}
			u := used{o: o, as: s}
			if !value(&u, &i, val, eq) {
				return nil
			}
			call.add(u)
		case strings.HasPrefix(s, "--") || t.mode == exact:
			name, val, eq := strings.Cut(strings.TrimLeft(s, "-"), "=")
			if t.mode == exact && !strings.HasPrefix(s, "--") {
				name, val, eq = s[1:], "", false
				if o := tab.short[s[1]]; len(s) == 2 && o != nil {
					u := used{o: o, as: s}
					if o.arg == required {
						v, ok := next(&i)
						if !ok {
							return missing(s)
						}
						u.val, u.given = v, true
					}
					call.add(u)
					continue
				}
				c.unknownOption(t, exe, s, "unknown")
				return nil
			}
			o, why := tab.lookupLong(name, t.abbrev && t.mode != exact)
			if o == nil {
				c.unknownOption(t, exe, s, why)
				return nil
			}
			u := used{o: o, as: s}
			if eq && o.arg == noArg {
				c.refuse(DeniedPattern, exe, "", "`%s %s` gives a value to an option that takes none; %s would refuse it", exe, s, exe)
				return nil
			}
			if !value(&u, &i, val, eq) {
				return nil
			}
			call.add(u)
		default:
			// A bundle of short options: -nv, -oFILE, -n5, -i.bak.
			for j := 1; j < len(s); j++ {
				o := tab.short[s[j]]
				if j+2 <= len(s) && tab.multi[s[j:j+2]] != nil {
					o = tab.multi[s[j:j+2]]
					j++
				}
				if o == nil {
					as := "-" + string(s[j])
					if j > 1 {
						as = fmt.Sprintf("-%c (in %s)", s[j], s)
					}
					c.unknownOption(t, exe, as, "unknown")
					return nil
				}
				u := used{o: o, as: s}
				if o.arg != noArg {
					if j+1 < len(s) {
						u.val, u.given = word{text: s[j+1:]}, true
					} else if o.arg == required {
						v, ok := next(&i)
						if !ok {
							return missing(s)
						}
						u.val, u.given = v, true
					}
					call.add(u)
					break
				}
				call.add(u)
			}
		}
	}
	return call
}

// oldTarBundle reads tar's first word without a dash: every letter is an
// option, and the letters that take a value take the next words in order
// (tar xIf PROG a.tar).
func (c *checker) oldTarBundle(t *toolSpec, tab *optTable, call *toolCall, args []word, i *int) {
	s := args[0].text
	for j := 0; j < len(s); j++ {
		o := tab.short[s[j]]
		if o == nil {
			c.unknownOption(t, call.exe, fmt.Sprintf("%c (in %s)", s[j], s), "unknown")
			return
		}
		u := used{o: o, as: s}
		if o.arg == required {
			if *i+1 >= len(args) {
				c.refuse(DeniedPattern, call.exe, "", "`%s %s` is missing the value of %c; give it", call.exe, s, s[j])
				return
			}
			*i++
			u.val, u.given = args[*i], true
		}
		call.add(u)
	}
}

// parseExpression reads find's argv: -H/-L/-P/-D/-O, the start paths, then
// primaries with their values; -exec and its family take a command up to
// ; or +.
func (c *checker) parseExpression(t *toolSpec, tab *optTable, call *toolCall, args []word) *toolCall {
	i := 0
	for ; i < len(args); i++ {
		s := args[i].text
		if s == "-H" || s == "-L" || s == "-P" || strings.HasPrefix(s, "-O") {
			continue
		}
		if s == "-D" {
			i++
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		s := args[i].text
		if strings.HasPrefix(s, "-") || s == "(" || s == ")" || s == "!" || s == "," {
			break
		}
		call.operands = append(call.operands, args[i])
	}
	for ; i < len(args); i++ {
		s := args[i].text
		switch s {
		case "(", ")", "!", ",":
			continue
		}
		name := strings.TrimPrefix(s, "-")
		o := tab.long[name]
		if !strings.HasPrefix(s, "-") || o == nil {
			if strings.HasPrefix(name, "newer") && len(name) == 7 && strings.ContainsRune("aBcmt", rune(name[5])) && strings.ContainsRune("aBcmt", rune(name[6])) {
				i++ // -newerXY REF
				continue
			}
			c.unknownOption(t, call.exe, s, "unknown")
			return nil
		}
		u := used{o: o, as: s}
		switch o.arg {
		case required, twoArgs:
			n := 1
			if o.arg == twoArgs {
				n = 2
			}
			if i+n >= len(args) {
				c.refuse(DeniedPattern, call.exe, "", "`%s %s` is missing its value; give it", call.exe, s)
				return nil
			}
			u.val, u.given = args[i+1], true
			i += n
		}
		if o.eff == eInner {
			end := -1
			for j := i + 1; j < len(args); j++ {
				if args[j].text == ";" || args[j].text == "+" {
					end = j
					break
				}
			}
			if end < 0 || end == i+1 {
				c.refuse(NestedCommand, call.exe, "", "`%s %s` has no command ending in ; or +, so the policy cannot read what it runs; write `%s … %s CMD ARGS {} \\;`", call.exe, s, call.exe, s)
				return nil
			}
			call.add(u)
			c.command(args[i+1:end], call.depth+1)
			if c.refused {
				return nil
			}
			i = end
			continue
		}
		call.add(u)
	}
	return call
}

// applyTool checks one parsed call: every option's effect, then the
// operands, then the tool's hook.
func (c *checker) applyTool(call *toolCall) {
	exe := call.exe
	target := false
	for _, u := range call.opts {
		if u.o.eff == eChdir {
			// The tool's own paths are read from the directory it
			// moves to; the line's later commands are not.
			saved := c.dirs
			defer func() { c.dirs = saved }()
			break
		}
	}
	for _, u := range call.opts {
		if c.refused {
			return
		}
		o := u.o
		why := o.why
		switch o.eff {
		case eRead:
			c.path(u.val, readAccess, exe, "file "+exe+" "+o.name()+" reads")
		case eWrite:
			c.path(u.val, writeAccess, exe, "file "+exe+" "+o.name()+" writes")
		case eWdir, eTarget:
			c.path(u.val, writeAccess, exe, "directory "+exe+" "+o.name()+" writes into")
			target = target || o.eff == eTarget
		case eChdir:
			c.chdir(exe, u)
		case eRun:
			if why == "" {
				why = "it names a program or command for " + exe + " to run"
			}
			c.refuse(DeniedPattern, exe, "", "`%s %s` is refused by aw's built-in rules: %s; run the program yourself as its own command, if it is allowed", exe, u.as, why)
		case eRefuse:
			c.refuse(DeniedPattern, exe, "", "`%s %s` is refused by aw's built-in rules: %s", exe, u.as, why)
		case eNested:
			if why == "" {
				why = "the command it runs is not one the policy can follow"
			}
			c.refuse(NestedCommand, exe, "", "%s with the option %s runs a command the policy cannot read (%s); run the inner command directly", exe, u.as, why)
		case eScript:
			c.scriptOption(exe, u, why)
		case eNames:
			c.namesOption(exe, u, why)
		case eCheck:
			if f := valueRules[o.check]; f != nil {
				f(c, exe, u)
			} else {
				c.refuse(NotAllowed, exe, "", "aw's rule for %s names the value rule %q, which does not exist; this is a bug in aw, report it", exe, o.check)
			}
		}
	}
	if c.refused {
		return
	}
	c.operands(call, target)
	if !c.refused && call.spec.hook != "" {
		hookFor(call.spec.hook)(c, call)
	}
}

// scriptOption: the tool takes its program text or configuration from a
// file or stdin the agent controls, so it is a runner for this call. A
// human allows that use by naming it in commands.allow ("awk -f").
func (c *checker) scriptOption(exe string, u used, why string) {
	if c.optionAllowed(exe, u) {
		return
	}
	if why == "" {
		why = "it loads program text or configuration from a file"
	}
	c.refuse(NestedCommand, exe, "", "`%s %s` makes %s a runner: %s, which the policy cannot read; pass the program inline, or a human who wants this allows it with `aw config set commands.allow` naming %q", exe, u.as, exe, why, exe+" "+u.o.name())
}

// optionAllowed: commands.allow names this use of the tool ("awk -f",
// "tar -T" or "tar --files-from").
func (c *checker) optionAllowed(exe string, u used) bool {
	for _, n := range u.o.long {
		if c.allow[exe+" --"+n] {
			return true
		}
	}
	return c.allow[exe+" "+u.o.name()] || len(u.o.short) > 0 && c.allow[exe+" -"+string(u.o.short[0])]
}

// namesOption: the tool opens files named inside another file (a list of
// names, a tags file, an error file) or on stdin. Those names are not on
// the line: the agent can write the file, even later on the same line or
// from a background job, so checking its content now would check the
// wrong names. The use is refused; a human allows it by naming it in
// commands.allow ("tar -T"). The file itself is a read either way.
func (c *checker) namesOption(exe string, u used, why string) {
	if u.given {
		pathCandidates(u.val.text, func(p string) { c.argPath(exe, p, false) })
	}
	if c.refused || c.optionAllowed(exe, u) {
		return
	}
	if why == "" {
		why = "it opens the files another file names"
	}
	c.refuse(DeniedPattern, exe, "", "`%s %s` is refused: %s, names the policy cannot check against denyPaths and protected paths (the agent can write that file, even after the check); name the files on the command line, or a human who wants this allows it with `aw config set commands.allow` naming %q", exe, u.as, why, exe+" "+u.o.name())
}

// operands checks the words after the options by the spec's kinds.
func (c *checker) operands(call *toolCall, target bool) {
	kinds := call.spec.operands
	ops := call.operands
	exe := call.exe
	if len(ops) == 0 && len(kinds) > 0 {
		switch kinds[0] {
		case "stdin-inner": // xargs alone runs echo
			c.stdinInner(call, nil)
		case "script-or-inner": // a shell alone reads stdin
			c.shellRunner(call, nil)
		}
		return
	}
	for i := 0; i < len(ops) && len(kinds) > 0 && !c.refused; i++ {
		k := kinds[0]
		if len(kinds) > 1 {
			kinds = kinds[1:]
		}
		w := ops[i]
		switch k {
		case "arg":
			// words the rule does not read as paths may still name one
			pathCandidates(w.text, func(p string) { c.argPath(exe, p, false) })
		case "read":
			c.path(w, readAccess, exe, "file "+exe+" reads")
		case "write":
			if target {
				c.path(w, readAccess, exe, "file "+exe+" reads")
			} else {
				c.path(w, writeAccess, exe, "file "+exe+" writes")
			}
		case "sources-write":
			if target || i < len(ops)-1 {
				c.path(w, readAccess, exe, "source "+exe+" reads")
			} else {
				c.path(w, writeAccess, exe, "destination "+exe+" writes")
			}
		case "inner":
			c.command(ops[i:], call.depth+1)
			return
		case "env":
			for ; i < len(ops) && ops[i].text == "-"; i++ {
			} // env - is env -i
			for ; i < len(ops); i++ {
				name, ok := isAssignment(ops[i].text)
				if !ok {
					break
				}
				c.assign(name, exe)
			}
			if i < len(ops) {
				c.command(ops[i:], call.depth+1)
			}
			return
		case "stdin-inner":
			c.stdinInner(call, ops[i:])
			return
		case "script-or-inner":
			c.shellRunner(call, ops[i:])
			return
		}
	}
}

// chdir follows a tool's own change of directory (go -C, make -C): the
// directory is checked as a write (the tool builds there), and the
// tool's later paths are checked from it.
func (c *checker) chdir(exe string, u used) {
	if c.path(u.val, writeAccess, exe, "directory "+exe+" "+strings.Split(u.as, "=")[0]+" runs in"); c.refused {
		return
	}
	var next []string
	for _, d := range c.dirs {
		p := u.val.text
		if !filepath.IsAbs(p) && d != "" && d != "." {
			p = d + "/" + p
		}
		res, err := c.ws.Jail.Resolve(p, writeAccess)
		if err != nil || res.Outside {
			c.refuse(PathEscape, exe, u.val.text, "the directory %s %s runs in leaves the workspace; give a directory inside it", exe, u.val.text)
			return
		}
		next = append(next, res.Rel)
	}
	c.dirs = next
}
