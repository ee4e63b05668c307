package policy

import (
	"sync"

	"github.com/agentic-workspace/aw/engine/workspace"
)

const (
	readAccess  = workspace.Read
	writeAccess = workspace.Write
)

// toolSpecs are the built-in tool rules, one table per tool. They are
// always on, whatever the settings say, and count as argument rules for
// their tool. Each carries argv lines it must allow and must refuse;
// TestToolRuleExamples runs every one, and fails (EveryRowIsNeeded)
// when a row's effect could be taken away without one of them noticing.
var toolSpecs = sync.OnceValue(func() map[string]*toolSpec {
	m := map[string]*toolSpec{}
	for _, t := range []*toolSpec{
		envSpec, timeSpec, timeoutSpec, niceSpec, nohupSpec, stdbufSpec, commandSpec, builtinSpec, execSpec,
		xargsSpec, setsidSpec, shSpec, findSpec, sedSpec, awkSpec, sortSpec, tarSpec, rgSpec,
		vimSpec, edSpec, lessSpec, manSpec, npxSpec, cpSpec, mvSpec, installSpec, lnSpec, touchSpec,
		ddSpec, teeSpec, truncateSpec, chmodSpec, mkdirSpec, rmSpec, gitSpec, hashSpec,
		makeSpec, goSpec, pkgSpec, rsyncSpec, zipSpec, unzipSpec, patchSpec, emacsSpec, scpSpec, sftpSpec,
	} {
		for _, n := range t.names {
			m[n] = t
		}
	}
	return m
})

func specFor(exe string) *toolSpec { return toolSpecs()[exe] }

// --- wrappers: the command they run is checked like any other ---

var envSpec = &toolSpec{
	names: []string{"env"}, mode: posix, abbrev: true, operands: []string{"env"},
	opts: `
	-i|--ignore-environment
	-0|--null
	-u|--unset=NAME
	-v|--debug
	-C|--chdir=DIR   nested  env -C moves the command to another directory; pass --cwd DIR to aw command instead
	-S|--split-string=S  nested  env -S splits a string into a command the policy does not parse; write the command as words
	--block-signal[=SIG]
	--default-signal[=SIG]
	--ignore-signal[=SIG]
	--list-signal-handling
	--help
	--version`,
	allow:  []string{"env GOOS=linux go build ./...", "env -i go test", "env -u FOO go test", "env -- go vet", "env - go vet"},
	refuse: []string{"denied-executable: env rm x", "denied-executable: env - rm x", "denied-executable: env -- - rm", "nested-command: env -S 'rm -rf /'", "nested-command: env --split='rm x'", "nested-command: env -C / go test", "nested-command: env -iS'rm x'", "denied-pattern: env LD_PRELOAD=x.so go test", "nested-command: env --unknown go test"},
	why:    "runs its operands as a command, with variables set",
}

// env's lone "-" is -i; the engine reads it as an operand, and the env
// operand kind skips it.

var timeSpec = &toolSpec{
	names: []string{"time"}, mode: posix, abbrev: true, operands: []string{"inner"},
	opts: `
	-p|--portability
	-v|--verbose
	-q|--quiet
	-a|--append
	-f|--format=FORMAT
	-o|--output=FILE  write
	--help
	-V|--version`,
	allow:  []string{"time go test", "time -p go test", "time -o time.log go test"},
	refuse: []string{"denied-executable: time rm x", "path-escape: time -o /tmp/t go test", "path-escape: time --out=.git/x go test", "path-escape: time -ao.agentic/x go test"},
}

var timeoutSpec = &toolSpec{
	names: []string{"timeout"}, mode: posix, abbrev: true, operands: []string{"duration", "inner"},
	opts: `
	-s|--signal=SIG
	-k|--kill-after=DUR
	-v|--verbose
	--preserve-status
	--foreground
	--help
	--version`,
	allow:  []string{"timeout 60 go test ./...", "timeout -s KILL 5 go test", "timeout -k5 10 go test", "timeout --sig=TERM 5 go test"},
	refuse: []string{"denied-executable: timeout 5 rm x", "denied-executable: timeout -k 1 5 rm x", "nested-command: timeout --bogus 5 go test"},
}

var niceSpec = &toolSpec{
	names: []string{"nice"}, mode: posix, abbrev: true, numbers: true, operands: []string{"inner"},
	opts: `
	-n|--adjustment=N
	--help
	--version`,
	allow:  []string{"nice go test", "nice -n 5 go test", "nice -10 go test", "nice --adj=3 go test"},
	refuse: []string{"denied-executable: nice -n5 rm x", "denied-executable: nice -19 rm x", "nested-command: nice bash"},
}

var nohupSpec = &toolSpec{
	names: []string{"nohup"}, mode: posix, operands: []string{"inner"},
	opts:   "--help\n--version",
	allow:  []string{"nohup go test"},
	refuse: []string{"denied-executable: nohup rm x", "nested-command: nohup -x go test"},
}

var stdbufSpec = &toolSpec{
	names: []string{"stdbuf"}, mode: posix, abbrev: true, operands: []string{"inner"},
	opts: `
	-i|--input=MODE
	-o|--output=MODE
	-e|--error=MODE
	--help
	--version`,
	allow:  []string{"stdbuf -oL go test", "stdbuf --output=L go test"},
	refuse: []string{"denied-executable: stdbuf -oL rm x", "denied-executable: stdbuf -i0 -eL rm x"},
}

// command, builtin and exec change how the next word is looked up (a
// builtin, the default PATH, a name for argv[0]), never whether it is
// checked: with -v or -V, in any position, the named command is checked too.
var commandSpec = &toolSpec{
	names: []string{"command"}, mode: posix, operands: []string{"inner"},
	opts:   "-p\n-v\n-V",
	allow:  []string{"command go test", "command -v go", "command -p go version"},
	refuse: []string{"denied-executable: command rm x", "denied-executable: command -v rm", "denied-executable: command -pv rm", "denied-executable: command -p -V rm", "denied-executable: command -- rm x", "denied-executable: command command rm x", "nested-command: command -x rm"},
}

var builtinSpec = &toolSpec{
	names: []string{"builtin"}, mode: posix, operands: []string{"inner"},
	allow:  []string{"builtin echo hi"},
	refuse: []string{"denied-executable: builtin rm x", "denied-executable: builtin -- rm"},
}

var execSpec = &toolSpec{
	names: []string{"exec"}, mode: posix, operands: []string{"inner"},
	opts:   "-c\n-l\n-a=NAME",
	allow:  []string{"exec go test"},
	refuse: []string{"denied-executable: exec rm x", "denied-executable: exec -a ls rm x", "denied-executable: exec -cl rm x", "denied-executable: exec -als rm"},
}

// hash -p binds a name to any file: the next `ls` would run it.
var hashSpec = &toolSpec{
	names: []string{"hash"}, mode: posix, operands: []string{"arg"},
	opts: `
	-r
	-d
	-l
	-t
	-p=PATH  run  hash -p makes a later command name run another file`,
	allow:  []string{"hash -r"},
	refuse: []string{"denied-pattern: hash -p /bin/rm ls", "denied-pattern: hash -rp/bin/rm ls"},
}

// --- runners named in allow: their inner command is checked, or refused ---

var xargsSpec = &toolSpec{
	names: []string{"xargs"}, mode: posix, abbrev: true, operands: []string{"stdin-inner"},
	opts: `
	-0|--null
	-a|--arg-file=FILE  read
	-d|--delimiter=DELIM
	-E=EOF
	-e|--eof[=EOF]
	-I=REPLACE
	-i|--replace[=REPLACE]
	-L|--max-lines=N
	-l[=N]
	-n|--max-args=N
	-P|--max-procs=N
	-p|--interactive
	-o|--open-tty
	-r|--no-run-if-empty
	-s|--max-chars=N
	-t|--verbose
	-x|--exit
	--process-slot-var=NAME  check:envname
	--show-limits
	--help
	--version`,
	allow:  []string{"xargs grep -l foo", "xargs -0 -n 10 wc -l", "xargs", "xargs --process-slot-var=SLOT grep x", "xargs -a list.txt grep x"},
	refuse: []string{"denied-executable: xargs rm", "denied-executable: xargs -0 rm -f", "denied-executable: xargs -n1 -P4 rm", "not-allowed: xargs -I{} {} x", "denied-pattern: xargs git log", "denied-executable: xargs -- rm", "denied-pattern: xargs sh -c 'rm x'", "nested-command: xargs --bogus grep x", "path-escape: xargs -a /etc/passwd grep x"},
}

var setsidSpec = &toolSpec{
	names: []string{"setsid"}, mode: posix, operands: []string{"inner"},
	opts:   "-c|--ctty\n-f|--fork\n-w|--wait\n--help\n--version",
	allow:  []string{"setsid -w go test"},
	refuse: []string{"denied-executable: setsid rm x", "denied-executable: setsid -fw rm x"},
}

// A shell named in allow runs -c text that is parsed and checked like a
// shell line; a script file or stdin cannot be read, so it is refused
// unless commands.allow names the script's workspace path.
var shSpec = &toolSpec{
	names: []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "rbash"}, mode: posix, operands: []string{"script-or-inner"},
	opts: `
	-c
	-e
	-x
	-u
	-v
	-n
	-f
	-a
	-b
	-C
	-h
	-m
	-l|--login
	-o=OPTION
	-O=SHOPT
	-r|--restricted
	-p
	-i  script  an interactive shell reads its start-up files
	-s  script  it reads commands from stdin
	--noprofile
	--norc
	--posix
	--noediting
	--rcfile=FILE  script
	--init-file=FILE  script
	--help
	--version`,
	refuse: []string{"nested-command: bash --init-file x.sh -c 'go vet'", "nested-command: bash --rcfile x.sh -c 'go vet'", "nested-command: sh -i -c 'go vet'", "nested-command: sh -s -c 'go vet'"},
}

// --- find: an expression whose actions run, write or delete ---

var findSpec = &toolSpec{
	names: []string{"find"}, mode: expression, operands: []string{"read"},
	opts: `
	-name=P
	-iname=P
	-path=P
	-ipath=P
	-wholename=P
	-iwholename=P
	-regex=P
	-iregex=P
	-regextype=T
	-lname=P
	-ilname=P
	-type=T
	-xtype=T
	-size=N
	-perm=M
	-user=U
	-group=G
	-uid=N
	-gid=N
	-links=N
	-inum=N
	-samefile=F
	-newer=F
	-anewer=F
	-cnewer=F
	-amin=N
	-atime=N
	-cmin=N
	-ctime=N
	-mmin=N
	-mtime=N
	-used=N
	-fstype=T
	-context=C
	-maxdepth=N
	-mindepth=N
	-files0-from=F  names  it reads the starting points from the file
	-empty
	-executable
	-readable
	-writable
	-nouser
	-nogroup
	-true
	-false
	-depth
	-d
	-mount
	-xdev
	-noleaf
	-daystart
	-follow
	-ignore_readdir_race
	-noignore_readdir_race
	-warn
	-nowarn
	-not
	-a
	-and
	-o
	-or
	-print
	-print0
	-printf=FORMAT
	-ls
	-prune
	-quit
	-help
	-version
	-exec  inner
	-execdir  inner
	-ok  inner
	-okdir  inner
	-fprint=FILE  refuse  it writes a file the policy does not check; print to stdout instead
	-fprint0=FILE  refuse  it writes a file the policy does not check; print to stdout instead
	-fls=FILE  refuse  it writes a file the policy does not check; print to stdout instead
	-fprintf==FILE  refuse  it writes a file the policy does not check; print to stdout instead
	-delete  refuse  it deletes every match; delete files with aw edit so the change can be reviewed and rolled back`,
	allow: []string{"find . -name '*.go'", "find . -name '*.tmp' -exec ls -l {} \\;", "find sub -type f -newer go.mod -print", "find -L . -maxdepth 2 \\( -name a -o -name b \\) -print0", "find . -newermt 2024-01-01", "find . -execdir grep -l x {} +", "find . -ok grep x {} \\;", "find . -okdir grep x {} \\;"},
	refuse: []string{"denied-pattern: find -files0-from list -name x", "denied-executable: find . -exec rm {} \\;", "denied-executable: find . -execdir rm {} +", "denied-executable: find . -ok rm {} \\;", "denied-executable: find . -okdir rm {} \\;",
		"denied-executable: find . -name x -o -exec rm {} \\;", "denied-pattern: find . -fprint x", "denied-pattern: find . -fprintf x %p", "denied-pattern: find . -fls x", "denied-pattern: find . -fprint0 x", "denied-pattern: find . -delete",
		"nested-command: find . -exec sh -c id \\;", "nested-command: find . -exec", "denied-pattern: find . -evil", "path-escape: find .env -exec cat {} +", "path-escape: find / -name x", "nested-command: find . -exec find . -exec rm {} \\; \\;"},
}

// --- editors and filters whose language can run or write ---

var sedSpec = &toolSpec{
	names: []string{"sed", "gsed"}, mode: gnu, abbrev: true, operands: []string{"arg"}, hook: "sed",
	opts: `
	-n|--quiet|--silent
	--debug
	-e|--expression=SCRIPT
	-f|--file=FILE  script  a sed script file
	--follow-symlinks
	-i|--in-place[=SUFFIX]
	-l|--line-length=N
	--posix
	-E|-r|--regexp-extended
	-s|--separate
	--sandbox
	-u|--unbuffered
	-z|--null-data
	--help
	--version`,
	allow: []string{"sed -n 1,20p README.md", "sed -i s/a/b/ sub/f.txt", "sed -ne p f", "sed -E -s 's/(a)/\\1/' f", "sed --expr=p f", "sed -i.bak s/a/b/ f", "sed 'r sub/x' f", "sed -n '/a/p' f", "sed 's/[/]/_/g' f", "sed -i'bak_*' s/a/b/ f", "sed -n '/[[:digit:]]/p' f"},
	refuse: []string{"denied-pattern: sed e f", "denied-pattern: sed -nee f", "denied-pattern: sed -n -e 1e f", "denied-pattern: sed 's/a/b/e' f", "denied-pattern: sed 's/a/b/w out' f", "denied-pattern: sed 'w out' f", "denied-pattern: sed 'W out' f",
		"denied-pattern: sed --expression=e f", "denied-pattern: sed --exp=e f", "nested-command: sed -f s.sed f", "nested-command: sed -sf s.sed f", "nested-command: sed --fil=s.sed f", "nested-command: sed -Ef s.sed f",
		"path-escape: sed -i s/a/b/ .git/config", "path-escape: sed p -i .git/config", "path-escape: sed -ni p .agentic/config.json", "path-escape: sed -si s/a/b/ ../x", "path-escape: sed --in-pl s/a/b/ .git/config", "path-escape: sed 'r /etc/passwd' f", "path-escape: sed 'R .env' f",
		"denied-pattern: sed -i -e 's/a/b/;e id' f", "denied-pattern: sed --bogus p f", "denied-pattern: sed -x p f",
		"denied-pattern: sed 's/[/]/;p;/w /tmp/x' f", "denied-pattern: sed 's/[/]*/\\\n/e' f", "denied-pattern: sed '/[/]/;p;/w x' f", "denied-pattern: sed 's/[[:alpha:]/]/;/e' f", "denied-pattern: sed 's/[\\/]/;/e' f",
		"denied-pattern: sed -i'.git/hooks/*' s/a/b/ f", "denied-pattern: sed --in-place=/tmp/* s/a/b/ f", "denied-pattern: sed -i../x s/a/b/ f"},
}

var awkSpec = &toolSpec{
	names: []string{"awk", "gawk", "mawk", "nawk"}, mode: posix, abbrev: true, operands: []string{"arg"}, hook: "awk",
	opts: `
	-F|--field-separator=FS
	-v|--assign=VAR=VAL  check:awkvar
	-f|--file=FILE  script  an awk program file
	-e|--source=TEXT
	-E|--exec=FILE  script  an awk program file
	-i|--include=FILE  script  an awk source library
	-l|--load=LIB  script  a compiled extension
	-b|--characters-as-bytes
	-c|--traditional
	-C|--copyright
	-d|--dump-variables[=FILE]  refuse  it writes the variables to a file the policy does not check
	-D|--debug[=FILE]  script  the debugger reads commands
	-g|--gen-pot
	-h|--help
	-L|--lint[=VALUE]
	-M|--bignum
	-N|--use-lc-numeric
	-n|--non-decimal-data
	-o|--pretty-print[=FILE]  refuse  it writes the program to a file the policy does not check
	-O|--optimize
	-p|--profile[=FILE]  refuse  it writes a profile to a file the policy does not check
	-P|--posix
	-r|--re-interval
	-s|--no-optimize
	-S|--sandbox
	-t|--lint-old
	-V|--version
	-k|--csv
	-W=OPTION  refuse  -W passes an implementation option aw does not read; use the long option instead`,
	allow: []string{"awk '{print $1}' f", "awk -F: '{print $2}' f", "awk -v n=3 'NR<n' f", "gawk --sandbox -e '{print}' f", "awk 'length($0) > 72' f", "awk '$3 > 5 {print $1}' f", "awk '{print $1}; NR > 5 {exit}' f", "awk '{ if ($3 > 0) print $1 }' f", "awk 'NR>1{print $2}' f"},
	refuse: []string{"denied-pattern: awk 'BEGIN{system(\"id\")}'", "denied-pattern: awk '{print | \"sh\"}' f", "denied-pattern: awk 'BEGIN{\"id\" | getline x}'", "denied-pattern: awk '{print > \"/tmp/x\"}' f", "denied-pattern: awk '{printf \"%s\", $0 >> \"out\"}' f", "denied-pattern: awk 'BEGIN{getline l < \"/etc/passwd\"}'", "denied-pattern: awk 'BEGIN{f=\"sys\" \"tem\"; @f(\"id\")}'", "denied-pattern: awk -e 'BEGIN{system(\"id\")}' f",
		"nested-command: awk -f p.awk f", "nested-command: awk -vx=1 -f p.awk f", "denied-pattern: awk --fi=p.awk f", "nested-command: awk --fil=p.awk f", "nested-command: gawk -l ext f", "nested-command: gawk -E p.awk", "denied-pattern: gawk -o/tmp/x 1 f", "denied-pattern: awk -W exec=p.awk", "denied-pattern: awk -v LD_PRELOAD=x 1 f",
		"denied-pattern: awk '{print a[\"}\"] > \"/tmp/x\"}' f", "denied-pattern: awk '{print /}/ > \"x\"}' f", "denied-pattern: awk '$0 ~ /\"/ {print > \"x\"}' f", "denied-pattern: awk '{print $1,\n$2 > \"x\"}' f", "denied-pattern: awk '{print \\\n> \"x\"}' f", "denied-pattern: awk '{printf(\"%s\", $0) > \"x\"}' f",
		"denied-pattern: awk 'BEGIN{ARGV[1]=\".env\";ARGC=2}{print}'", "nested-command: awk -D 1 f", "denied-pattern: awk -d 1 f", "nested-command: awk -i lib.awk 1 f", "denied-pattern: awk -p 1 f"},
}

var sortSpec = &toolSpec{
	names: []string{"sort"}, mode: gnu, abbrev: true, operands: []string{"read"},
	opts: `
	-b|--ignore-leading-blanks
	-d|--dictionary-order
	-f|--ignore-case
	-g|--general-numeric-sort
	-i|--ignore-nonprinting
	-M|--month-sort
	-h|--human-numeric-sort
	-n|--numeric-sort
	-R|--random-sort
	--random-source=FILE  read
	-r|--reverse
	--sort=WORD
	-V|--version-sort
	--batch-size=N
	-c
	-C
	--check[=X]
	--compress-program=PROG  run  it runs a program on sort's temporary files
	--debug
	--files0-from=FILE  names  it reads the names of the files to sort from the file
	-k|--key=KEYDEF
	-m|--merge
	-o|--output=FILE  write
	-s|--stable
	-S|--buffer-size=SIZE
	-t|--field-separator=SEP
	-T|--temporary-directory=DIR  wdir
	--parallel=N
	-u|--unique
	-z|--zero-terminated
	--help
	--version`,
	allow:  []string{"sort f", "sort -rn -k2 f", "sort -o out.txt f", "sort -ooutput.txt f", "sort -t, -k1,1 f", "sort -T sub f", "sort --random-source=go.mod -R f"},
	refuse: []string{"denied-pattern: sort --compress-program=gzip f", "denied-pattern: sort --compress=gzip f", "denied-pattern: sort --comp gzip f", "path-escape: sort -o /tmp/x f", "path-escape: sort -uo.git/config f", "path-escape: sort f -o .agentic/x", "path-escape: sort --out=../x f", "path-escape: sort -T /tmp f", "path-escape: sort .env", "denied-pattern: sort --files0-from=-", "denied-pattern: sort --files0-from=list", "denied-pattern: sort --bogus f", "path-escape: sort --random-source=/etc/passwd -R f"},
}

var tarSpec = &toolSpec{
	names: []string{"tar", "gtar"}, mode: oldTar, abbrev: true, operands: []string{"read"}, hook: "tar",
	opts: `
	-A|--catenate|--concatenate
	-c|--create
	-d|--diff|--compare
	--delete
	-r|--append
	-t|--list
	--test-label
	-u|--update
	-x|--extract|--get
	--show-defaults
	-?|--help
	--usage
	--version
	--check-device
	--no-check-device
	-g|--listed-incremental=FILE  write
	-G|--incremental
	--hole-detection=TYPE
	--ignore-failed-read
	--level=N
	-n|--seek
	--no-seek
	--occurrence[=N]
	--sparse-version=V
	-S|--sparse
	-k|--keep-old-files
	--keep-directory-symlink
	--keep-newer-files
	--no-overwrite-dir
	--one-top-level[=DIR]
	--overwrite
	--overwrite-dir
	--recursive-unlink
	--remove-files
	--skip-old-files
	-U|--unlink-first
	-W|--verify
	--ignore-command-error
	--no-ignore-command-error
	-O|--to-stdout
	--to-command=CMD  run  it pipes every member into a command
	--atime-preserve[=METHOD]
	--clamp-mtime
	--delay-directory-restore
	--group=NAME
	--group-map=FILE  read
	--mode=CHANGES
	--mtime=DATE
	-m|--touch
	--no-delay-directory-restore
	--no-same-owner
	--no-same-permissions
	--numeric-owner
	--owner=NAME
	--owner-map=FILE  read
	-p|--preserve-permissions|--same-permissions
	--same-owner
	-s|--preserve-order|--same-order
	--sort=ORDER
	--acls
	--no-acls
	--selinux
	--no-selinux
	--xattrs
	--no-xattrs
	--xattrs-exclude=PATTERN
	--xattrs-include=PATTERN
	# -f is read by the tar hook, which knows whether the mode reads or writes the archive
	-f|--file=ARCHIVE
	--force-local
	-F|--info-script|--new-volume-script=CMD  run  it runs a script at the end of each volume
	-L|--tape-length=N
	-M|--multi-volume
	--rmt-command=CMD  run  it names the remote tape program to run
	--rsh-command=CMD  run  it names the remote shell to run
	--volno-file=FILE  write
	-b|--blocking-factor=N
	-B|--read-full-records
	-i|--ignore-zeros
	--record-size=N
	-H|--format=FORMAT
	-V|--label=TEXT
	--old-archive|--portability
	--pax-option=LIST
	--posix
	-a|--auto-compress
	-I|--use-compress-program=PROG  run  it runs a program to compress or decompress
	-j|--bzip2
	-J|--xz
	--lzip
	--lzma
	--lzop
	--no-auto-compress
	-z|--gzip|--gunzip|--ungzip
	-Z|--compress|--uncompress
	--zstd
	--add-file=FILE  read
	--backup[=CONTROL]
	-C|--directory=DIR  wdir
	--exclude=PATTERN
	--exclude-backups
	--exclude-caches
	--exclude-caches-all
	--exclude-caches-under
	--exclude-ignore=FILE
	--exclude-ignore-recursive=FILE
	--exclude-tag=FILE
	--exclude-tag-all=FILE
	--exclude-tag-under=FILE
	--exclude-vcs
	--exclude-vcs-ignores
	-h|--dereference
	--hard-dereference
	-K|--starting-file=MEMBER
	--newer-mtime=DATE
	--no-null
	--no-recursion
	--no-unquote
	--no-verbatim-files-from
	--null
	-N|--newer|--after-date=DATE
	--one-file-system
	-P|--absolute-names  refuse  members with absolute names are written outside the workspace
	--recursion
	--suffix=STRING
	-T|--files-from=FILE  names  it reads the names of the files to archive from the file
	--unquote
	--verbatim-files-from
	-X|--exclude-from=FILE  read
	--strip-components=N
	--transform|--xform=EXPR
	--anchored
	--ignore-case
	--no-anchored
	--no-ignore-case
	--no-wildcards
	--no-wildcards-match-slash
	--wildcards
	--wildcards-match-slash
	--checkpoint[=N]
	--checkpoint-action=ACTION  run  a checkpoint action can run a command
	--full-time
	--index-file=FILE  write
	-l|--check-links
	--no-quote-chars=STRING
	--quote-chars=STRING
	--quoting-style=STYLE
	-R|--block-number
	--show-omitted-dirs
	--show-transformed-names|--show-stored-names
	--totals[=SIGNAL]
	--utc
	-v|--verbose
	--warning=KEYWORD
	-w|--interactive|--confirmation
	-o
	--restrict`,
	allow: []string{"tar -czf dist.tar.gz dist", "tar czf dist.tar.gz dist", "tar -tzf a.tar.gz", "tar -xOf a.tar file", "tar --create --file=x.tar sub", "tar -cf x.tar -C sub .", "tar --add-file=go.mod -cf a.tar .", "tar --group-map=groups.txt -cf a.tar .", "tar --index-file=idx.txt -cvf a.tar .", "tar --owner-map=owners.txt -cf a.tar .", "tar --volno-file=vol.txt -cf a.tar .", "tar -X excl.txt -cf a.tar .", "tar -g snap.txt -cf a.tar ."},
	refuse: []string{"denied-pattern: tar --to-command='sh -c id' -xOf a.tar", "denied-pattern: tar --to-c=id -tf a.tar", "denied-pattern: tar -I ./evil -cf a.tar .", "denied-pattern: tar -Ievil -cf a.tar .", "denied-pattern: tar xIf ./evil a.tar", "denied-pattern: tar --use-compress-program=./evil -cf a.tar .", "denied-pattern: tar --use-comp=./evil -cf a.tar .",
		"denied-pattern: tar --checkpoint=1 --checkpoint-action=exec=id -cf a.tar .", "denied-pattern: tar --checkpoint-a=exec=id -cf a.tar .", "denied-pattern: tar -cf a.tar -F ./evil .", "denied-pattern: tar --info-script=./evil -cf a.tar .", "denied-pattern: tar --new-vol=./evil -cf a.tar .",
		"denied-pattern: tar -xf a.tar", "denied-pattern: tar xf a.tar", "denied-pattern: tar --extract -f a.tar", "denied-pattern: tar -cf host:a.tar .", "denied-pattern: tar --rsh-command=./evil -cf h:a .",
		"path-escape: tar -cf /tmp/a.tar .", "path-escape: tar -czf .git/x.tgz .", "path-escape: tar cf .agentic/a.tar .", "path-escape: tar -c -T .env -f a.tar", "denied-pattern: tar -cf a.tar -T -", "denied-pattern: tar -cf a.tar -T list.txt", "denied-pattern: tar -cf a.tar --files-f=list.txt", "denied-pattern: tar cTf list.txt a.tar", "denied-pattern: tar -cf a.tar --files-from=/dev/stdin", "path-escape: tar -cf a.tar -C /etc .", "denied-pattern: tar --bogus -cf a.tar .", "denied-pattern: tar cYf a.tar .", "path-escape: tar --add-file=/etc/passwd -cf a.tar .", "path-escape: tar --group-map=/etc/group -cf a.tar .", "path-escape: tar --index-file=/tmp/x -cvf a.tar .", "path-escape: tar --owner-map=/etc/passwd -cf a.tar .", "denied-pattern: tar --rmt-command=./evil -cf a.tar .", "denied-pattern: tar --rsh-command=./evil -cf host:a.tar .", "path-escape: tar --volno-file=.git/x -cf a.tar .", "denied-pattern: tar -P -cf a.tar .", "path-escape: tar -X /etc/passwd -cf a.tar .", "path-escape: tar -g .git/snap -cf a.tar .", "denied-pattern: tar --rsh-command=./evil -cf a.tar .", "denied-pattern: tar --rsh-command=./evil -cf a.tar ."},
}

// TAR_OPTIONS is stripped from the spawned environment and refused on a
// line: tar reads options from it.

var rgSpec = &toolSpec{
	names: []string{"rg"}, mode: gnu, abbrev: false, operands: []string{"read"},
	opts: `
	-e|--regexp=PATTERN
	-f|--file=FILE  read
	--pre=COMMAND  run  it runs a program on every file searched
	--pre-glob=GLOB  run  it selects files for a --pre program
	--hostname-bin=COMMAND  run  it runs a program to find the host name
	-z|--search-zip
	-A|--after-context=N
	-B|--before-context=N
	-C|--context=N
	--context-separator=SEP
	--no-context-separator
	-c|--count
	--count-matches
	--color=WHEN
	--colors=SPEC
	--column
	--no-column
	-E|--encoding=ENC
	--engine=ENGINE
	--field-context-separator=SEP
	--field-match-separator=SEP
	--files
	-l|--files-with-matches
	--files-without-match
	-F|--fixed-strings
	--no-fixed-strings
	-L|--follow
	--no-follow
	-g|--glob=GLOB
	--iglob=GLOB
	--glob-case-insensitive
	--no-glob-case-insensitive
	--heading
	--no-heading
	-.|--hidden
	--no-hidden
	-i|--ignore-case
	--ignore-file=PATH  read
	--ignore-file-case-insensitive
	--no-ignore-file-case-insensitive
	--include-zero
	--no-include-zero
	-v|--invert-match
	--no-invert-match
	--json
	--no-json
	--line-buffered
	--no-line-buffered
	-n|--line-number
	-N|--no-line-number
	-x|--line-regexp
	-M|--max-columns=N
	--max-columns-preview
	--no-max-columns-preview
	-m|--max-count=N
	-d|--max-depth|--maxdepth=N
	--max-filesize=N
	--mmap
	--no-mmap
	-U|--multiline
	--no-multiline
	--multiline-dotall
	--no-multiline-dotall
	--no-config
	--no-ignore
	--ignore
	--no-ignore-dot
	--ignore-dot
	--no-ignore-exclude
	--ignore-exclude
	--no-ignore-files
	--ignore-files
	--no-ignore-global
	--ignore-global
	--no-ignore-messages
	--ignore-messages
	--no-ignore-parent
	--ignore-parent
	--no-ignore-vcs
	--ignore-vcs
	--no-messages
	--messages
	--no-pcre2-unicode
	--pcre2-unicode
	--no-require-git
	--require-git
	--no-unicode
	--unicode
	-0|--null
	--null-data
	--one-file-system
	--no-one-file-system
	-o|--only-matching
	--passthru|--passthrough
	--path-separator=SEP
	-P|--pcre2
	--no-pcre2
	--pcre2-version
	--no-pre
	-p|--pretty
	-q|--quiet
	--regex-size-limit=N
	--dfa-size-limit=N
	-r|--replace=TEXT
	--no-search-zip
	-S|--smart-case
	-s|--case-sensitive
	--sort=SORTBY
	--sortr=SORTBY
	--sort-files
	--no-sort-files
	--stats
	--no-stats
	--stop-on-nonmatch
	-a|--text
	--no-text
	-j|--threads=N
	--trim
	--no-trim
	-t|--type=TYPE
	-T|--type-not=TYPE
	--type-add=SPEC
	--type-clear=TYPE
	--type-list
	-u|--unrestricted
	--vimgrep
	-H|--with-filename
	-I|--no-filename
	-w|--word-regexp
	--auto-hybrid-regex
	--no-auto-hybrid-regex
	--block-buffered
	--no-block-buffered
	--byte-offset
	-b
	--crlf
	--no-crlf
	--debug
	--trace
	--binary
	--no-binary
	--generate=KIND
	--hyperlink-format=FORMAT
	-V|--version
	-h|--help`,
	allow:  []string{"rg foo", "rg -n --hidden -g '*.go' foo sub", "rg -z foo", "rg --search-zip foo", "rg -uuu foo", "rg -tgo -C3 foo", "rg --ignore-file=.rgignore foo", "rg -f pats.txt"},
	refuse: []string{"denied-pattern: rg --pre ./evil foo", "denied-pattern: rg --pre=./evil foo", "denied-pattern: rg --pre-glob '*' foo", "denied-pattern: rg --hostname-bin=./evil foo", "denied-pattern: rg --pr=./evil foo", "path-escape: rg foo .env", "path-escape: rg -f /etc/passwd x", "denied-pattern: rg --bogus foo", "path-escape: rg --ignore-file=/etc/passwd foo", "path-escape: rg -f /etc/passwd"},
}

// RIPGREP_CONFIG_PATH is stripped and refused on a line: a config file
// could hold --pre.

var vimSpec = &toolSpec{
	names: []string{"vim", "vi", "nvim", "view", "ex", "vimdiff", "rvim", "rview", "vim.basic", "vim.tiny"}, mode: gnu, plus: eRun, operands: []string{"arg"}, hook: "vim",
	opts: `
	-c=CMD  run  an editor command can run a shell command
	--cmd=CMD  run  an editor command can run a shell command
	-S=FILE  script  a session file holds editor commands
	-u=VIMRC  script  a vimrc holds editor commands
	-U=GVIMRC  script  a gvimrc holds editor commands
	-s=SCRIPTIN  script  a script of typed keys can run a shell command
	-e  script  Ex mode reads editor commands from stdin
	-E  script  Ex mode reads editor commands from stdin
	-w=SCRIPTOUT  refuse  it writes typed keys to a file the policy does not check
	-W=SCRIPTOUT  refuse  it writes typed keys to a file the policy does not check
	-i=VIMINFO  refuse  it writes a viminfo file the policy does not check
	--startuptime=FILE  refuse  it writes a timing file the policy does not check
	-V[=N]  refuse  verbose mode can write a log file
	--remote  run  it sends commands to another editor
	--remote-send=KEYS  run  it sends keys to another editor
	--remote-expr=EXPR  run  it evaluates an expression in another editor
	--servername=NAME  run  it talks to another editor
	-R
	-M
	-m
	-n
	-N
	-C
	-b
	-l
	-d
	-r
	-L
	-Z
	-y
	-A
	-H
	-o[=N]
	-O[=N]
	-p[=N]
	-q=ERRORFILE  names  it opens the files an error file names
	-t=TAG  names  it opens the file a tags file names for the tag
	-T=TERM
	-x
	-X
	-h|--help
	--version
	--noplugin
	--clean
	--not-a-term
	--ttyfail`,
	// In argv mode a command's stdin is /dev/null; in a shell line it can
	// be a pipe or a here-document, and vim reads keys from a stdin that
	// is not a terminal (sh mode is checked in TestToolRuleVariants).
	allow:  []string{"vim -R f", "vi +12 f", "vim -d a b", "view -n f"},
	refuse: []string{"denied-pattern: vim -c ':!id' f", "denied-pattern: vim '+!id' f", "denied-pattern: vim +w f", "denied-pattern: vim --cmd '!id' f", "denied-pattern: vim -Rc '!id' f", "nested-command: vim -S s.vim f", "nested-command: vim -u x.vim f", "nested-command: vim -es f", "nested-command: ex -s f", "nested-command: vim -Es f", "nested-command: vi -s keys f", "denied-pattern: vim -w keys f", "denied-pattern: vim --bogus f", "denied-pattern: vim --servername x --remote-send ':!id<CR>'", "denied-pattern: vim -t main", "denied-pattern: view -t main", "denied-pattern: vi -Rt main", "denied-pattern: vim -q errors.txt", "denied-pattern: ex -t main", "denied-pattern: vim --remote f", "denied-pattern: vim --remote-expr 'system(1)'", "denied-pattern: vim --remote-send ':!id<CR>'", "denied-pattern: vim --servername x f", "denied-pattern: vim --startuptime t.log f", "nested-command: vim -E f", "nested-command: vim -U x.vim f", "denied-pattern: vim -V f", "denied-pattern: vim -W keys f", "nested-command: vim -e f", "denied-pattern: vim -i info f"},
}

// ed reads its commands from stdin (a here-document, a pipe), and ! runs
// a shell command: it is a runner.
var edSpec = &toolSpec{
	names: []string{"ed", "red"}, mode: gnu, operands: []string{"arg"}, hook: "ed",
	opts:   "-G|--traditional\n-l|--loose-exit-status\n-p|--prompt=STRING\n-r|--restricted\n-s|--quiet|--silent\n-v|--verbose\n-h|--help\n-V|--version",
	refuse: []string{"nested-command: ed f", "nested-command: ed -s f"},
}

var lessSpec = &toolSpec{
	names: []string{"less", "more", "most"}, mode: gnu, abbrev: true, plus: eCheck, operands: []string{"read"},
	opts: `
	-?|--help
	-a|--search-skip-screen
	-A|--SEARCH-SKIP-SCREEN
	-b|--buffers=N
	-B|--auto-buffers
	-c|--clear-screen
	-C|--CLEAR-SCREEN
	-d|--dumb
	-D|--color=COLOR
	-e|--quit-at-eof
	-E|--QUIT-AT-EOF
	-f|--force
	-F|--quit-if-one-screen
	-g|--hilite-search
	-G|--HILITE-SEARCH
	-h|--max-back-scroll=N
	-i|--ignore-case
	-I|--IGNORE-CASE
	-j|--jump-target=N
	-J|--status-column
	-k|--lesskey-file=FILE  script  a key file can bind keys to shell commands
	--lesskey-src=FILE  script  a key file can bind keys to shell commands
	--lesskey-content=TEXT  script  key definitions can bind keys to shell commands
	-K|--quit-on-intr
	-L|--no-lessopen
	-m|--long-prompt
	-M|--LONG-PROMPT
	-n|--line-numbers
	-N|--LINE-NUMBERS
	-o|--log-file=FILE  write
	-O|--LOG-FILE=FILE  write
	-p|--pattern=PATTERN
	-P|--prompt=PROMPT
	-q|--quiet|--silent
	-Q|--QUIET|--SILENT
	-r|--raw-control-chars
	-R|--RAW-CONTROL-CHARS
	-s|--squeeze-blank-lines
	-S|--chop-long-lines
	-t|--tag=TAG  names  it opens the file a tags file names for the tag
	-T|--tag-file=FILE  names  a tags file names the files less opens
	-u|--underline-special
	-U|--UNDERLINE-SPECIAL
	-V|--version
	-w|--hilite-unread
	-W|--HILITE-UNREAD
	-x|--tabs=N
	-X|--no-init
	-y|--max-forw-scroll=N
	-z|--window=N
	-~|--tilde
	-#|--shift=N
	--file-size
	--follow-name
	--incsearch
	--line-num-width=N
	--mouse
	--no-keypad
	--no-histdups
	--rscroll=C
	--save-marks
	--status-col-width=N
	--use-backslash
	--use-color
	--wheel-lines=N
	--exit-follow-on-close`,
	allow:  []string{"less README.md", "less -N +G README.md", "less +/foo README.md", "less -R -S README.md", "less -FX README.md", "less -o less.log README.md", "less -O less.log README.md"},
	refuse: []string{"denied-pattern: less +!id README.md", "denied-pattern: less '+|id' README.md", "denied-pattern: less '+s out' README.md", "denied-pattern: less +v README.md", "nested-command: less -k keys README.md", "nested-command: less --lesskey-f=keys README.md", "nested-command: less -Nkkeys README.md", "path-escape: less -o /tmp/log README.md", "path-escape: less --log-f=.git/x README.md", "path-escape: less .env", "denied-pattern: less --bogus README.md", "denied-pattern: less -t main", "denied-pattern: less -tmain", "denied-pattern: less --ta=main", "denied-pattern: less -T tags README.md", "denied-pattern: more -t main", "path-escape: less -T .env", "nested-command: less --lesskey-content='! x' README.md", "nested-command: less --lesskey-src=keys.src README.md", "path-escape: less -O /tmp/log README.md"},
}

// LESSOPEN, LESSCLOSE, LESSKEY and LESS are stripped or refused: less runs
// LESSOPEN's command on every file.

var manSpec = &toolSpec{
	names: []string{"man"}, mode: gnu, abbrev: true, operands: []string{"arg"}, hook: "man",
	opts: `
	-C|--config-file=FILE  script  a man configuration file names the programs man runs
	-d|--debug
	-D|--default
	--warnings[=WARNINGS]
	-f|--whatis
	-k|--apropos
	-K|--global-apropos
	-l|--local-file  names  a page source can include any other file (.so), which man then shows
	-w|--where|--path|--location
	-W|--where-cat|--location-cat
	-c|--catman
	-R|--recode=ENCODING
	-L|--locale=LOCALE
	-m|--systems=SYSTEM
	-M|--manpath=PATH  names  pages from a directory the agent can write can include any other file (.so)
	-S|-s|--sections=LIST
	-e|--extension=EXT
	-i|--ignore-case
	-I|--match-case
	--regex
	--wildcard
	--names-only
	-a|--all
	-u|--update
	--no-subpages
	-P|--pager=PAGER  run  it names the pager man runs
	-r|--prompt=STRING
	-7|--ascii
	-E|--encoding=ENCODING
	--no-hyphenation|--nh
	--no-justification|--nj
	-p|--preprocessor=STRING
	-t|--troff
	-T|--troff-device[=DEVICE]
	-H|--html[=BROWSER]  run  it names a browser for man to run
	-X|--gxditview[=RESOLUTION]  run  it runs an X viewer
	-Z|--ditroff
	-?|--help
	--usage
	-V|--version`,
	allow:  []string{"man ls", "man 1 ls", "man -k printf", "man -w ls"},
	refuse: []string{"denied-pattern: man -P 'sh -c id' ls", "denied-pattern: man --pager=evil ls", "denied-pattern: man --pag=evil ls", "denied-pattern: man -aPevil ls", "denied-pattern: man -H ls", "denied-pattern: man --html=evil ls", "nested-command: man -C man.conf ls", "nested-command: man --config-f=x ls", "denied-pattern: man --bogus ls", "denied-pattern: man -l x.1", "denied-pattern: man ./x.1", "denied-pattern: man -M ./mp z", "denied-pattern: man --local x.1", "denied-pattern: man -X ls"},
}

// MANPAGER, PAGER, MANOPT, BROWSER are stripped or refused.

// npx and npm exec: the package's command must itself be allowed.
var npxSpec = &toolSpec{
	names: []string{"npx", "bunx", "pnpx"}, mode: posix, abbrev: false, operands: []string{"arg"}, hook: "npx",
	opts: `
	-y|--yes
	--no
	--no-install
	-q|--quiet
	--prefer-offline
	--offline
	--prefer-online
	--ignore-existing
	-p|--package=PKG
	-c|--call=CMD  script  it runs a shell string npx passes to a shell
	--shell=SHELL  run  it names the shell npx runs
	-w|--workspace=NAME
	--workspaces
	--include-workspace-root
	--help
	-v|--version`,
	allow:  []string{"npx eslint .", "npx -y eslint .", "npx -p eslint eslint .", "npx --package=eslint@8 eslint ."},
	refuse: []string{"denied-executable: npx rm x", "denied-executable: npx -p eslint rm x", "denied-executable: npx --package=x -- rm y", "not-allowed: npx cowsay hi", "nested-command: npx -c id", "nested-command: npx --call 'rm x'", "denied-pattern: npx --shell=./evil eslint", "denied-pattern: npx --script-shell=./evil eslint"},
}

// --- file tools: their operands are writes through the jail ---

var cpSpec = &toolSpec{
	names: []string{"cp"}, mode: gnu, abbrev: true, operands: []string{"sources-write"}, hook: "links",
	opts: `
	-a|--archive
	--attributes-only
	--backup[=CONTROL]
	-b
	--copy-contents
	-d
	-f|--force
	-i|--interactive
	-H
	-l|--link
	-L|--dereference
	-n|--no-clobber
	-P|--no-dereference
	-p
	--preserve[=LIST]
	--no-preserve=LIST
	--parents
	-R|-r|--recursive
	--reflink[=WHEN]
	--remove-destination
	--sparse=WHEN
	--strip-trailing-slashes
	-s|--symbolic-link
	-S|--suffix=SUFFIX  check:suffix
	-t|--target-directory=DIR  target
	-T|--no-target-directory
	-u|--update[=WHEN]
	-v|--verbose
	-x|--one-file-system
	-Z
	--context[=CTX]
	--debug
	--help
	--version`,
	allow:  []string{"cp go.mod sub/", "cp -r sub dist/", "cp -t dist go.mod README.md", "cp -av sub dist", "cp -b -S .bak go.mod sub/"},
	refuse: []string{"path-escape: cp x /tmp/y", "path-escape: cp x .git/config", "path-escape: cp -l .git/config sub/c", "path-escape: cp --link .agentic/config.json x", "path-escape: cp -al .git sub/g", "path-escape: cp -t .git/hooks x", "path-escape: cp --target=.agentic x", "path-escape: cp -rt/tmp x", "path-escape: cp .env x", "path-escape: cp /etc/shadow x", "path-escape: cp x y .agentic/", "denied-pattern: cp --bogus x y", "denied-pattern: cp -b -S /../../.git/hooks/x a sub/", "denied-pattern: cp --backup --suf=/x a b"},
}

var mvSpec = &toolSpec{
	names: []string{"mv"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts: `
	--backup[=CONTROL]
	-b
	--debug
	-f|--force
	-i|--interactive
	-n|--no-clobber
	--no-copy
	--strip-trailing-slashes
	-S|--suffix=SUFFIX  check:suffix
	-t|--target-directory=DIR  wdir
	-T|--no-target-directory
	-u|--update[=WHEN]
	-v|--verbose
	-Z|--context
	--exchange
	--help
	--version`,
	allow:  []string{"mv a.txt sub/b.txt", "mv -t sub a b", "mv -b -S .bak a b"},
	refuse: []string{"path-escape: mv .git/config x", "path-escape: mv x .git/config", "path-escape: mv x /tmp/", "path-escape: mv -t .agentic x", "path-escape: mv -ft/tmp x", "denied-pattern: mv --bogus a b", "denied-pattern: mv -b -S /x a b"},
}

var installSpec = &toolSpec{
	names: []string{"install"}, mode: gnu, abbrev: true, operands: []string{"sources-write"}, hook: "links",
	opts: `
	--backup[=CONTROL]
	-b
	-c
	-C|--compare
	-d|--directory
	-D
	-g|--group=GROUP
	-m|--mode=MODE
	-o|--owner=OWNER
	-p|--preserve-timestamps
	-s|--strip
	--strip-program=PROG  run  it runs a program on the installed files
	-S|--suffix=SUFFIX  check:suffix
	-t|--target-directory=DIR  target
	-T|--no-target-directory
	-v|--verbose
	--preserve-context
	-Z|--context[=CTX]
	--debug
	--help
	--version`,
	allow:  []string{"install -m 755 build/app dist/app", "install -d dist/bin", "install -b -S .bak build/app dist/app", "install -t dist build/app"},
	refuse: []string{"path-escape: install x /usr/local/bin/x", "path-escape: install -d .git/hooks x", "path-escape: install -d x /tmp/y", "path-escape: install -t .git/hooks x", "path-escape: install -Dm755 x .git/hooks/pre-commit", "denied-pattern: install -s --strip-program=./evil x dist/x", "denied-pattern: install --strip-p=./evil x y", "denied-pattern: install -b -S /x build/app dist/app"},
}

var lnSpec = &toolSpec{
	names: []string{"ln"}, mode: gnu, abbrev: true, operands: []string{"arg"}, hook: "ln",
	opts: `
	--backup[=CONTROL]
	-b
	-d|-F|--directory
	-f|--force
	-i|--interactive
	-L|--logical
	-n|--no-dereference
	-P|--physical
	-r|--relative
	-s|--symbolic
	-S|--suffix=SUFFIX  check:suffix
	-t|--target-directory=DIR  target
	-T|--no-target-directory
	-v|--verbose
	--help
	--version`,
	allow:  []string{"ln -s ../go.mod sub/go.mod", "ln -sf /usr/bin/env sub/env", "ln -s -b -S .bak ../go.mod sub/go.mod", "ln -s -t sub ../go.mod"},
	refuse: []string{"path-escape: ln -s x .git/hooks/pre-commit", "path-escape: ln x /tmp/y", "path-escape: ln .git/config sub/c", "path-escape: ln -st .agentic x", "path-escape: ln -s /etc/passwd .git/x", "denied-pattern: ln -s -b -S /x ../go.mod sub/go.mod"},
}

var touchSpec = &toolSpec{
	names: []string{"touch"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts: `
	-a
	-c|--no-create
	-d|--date=STRING
	-f
	-h|--no-dereference
	-m
	-r|--reference=FILE  read
	-t=STAMP
	--time=WORD
	--help
	--version`,
	allow:  []string{"touch sub/new.txt", "touch -d 2020-01-01 a", "touch -r go.mod a"},
	refuse: []string{"path-escape: touch .git/index.lock", "path-escape: touch /tmp/x", "path-escape: touch -c .agentic/x", "path-escape: touch -r .env x"},
}

var ddSpec = &toolSpec{
	names: []string{"dd"}, mode: exact, operands: []string{"arg"}, hook: "dd",
	opts:   "--help\n--version",
	allow:  []string{"dd if=go.mod of=sub/copy bs=1M count=1", "dd if=/dev/zero of=out.bin bs=1k count=4 status=none"},
	refuse: []string{"path-escape: dd if=x of=.git/config", "path-escape: dd of=/tmp/x", "path-escape: dd if=.env of=x", "path-escape: dd if=/etc/shadow of=x", "denied-pattern: dd bogus=1", "denied-pattern: dd of"},
}

var teeSpec = &toolSpec{
	names: []string{"tee"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts:   "-a|--append\n-i|--ignore-interrupts\n-p\n--output-error[=MODE]\n--help\n--version",
	allow:  []string{"tee sub/log.txt", "tee -a log.txt"},
	refuse: []string{"path-escape: tee /tmp/x", "path-escape: tee .git/config", "path-escape: tee -a x .agentic/y", "path-escape: tee -- .git/x", "denied-pattern: tee --bogus x"},
}

var truncateSpec = &toolSpec{
	names: []string{"truncate"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts:   "-c|--no-create\n-o|--io-blocks\n-r|--reference=FILE  read\n-s|--size=SIZE\n--help\n--version",
	allow:  []string{"truncate -s 0 log.txt", "truncate -r go.mod log.txt"},
	refuse: []string{"path-escape: truncate -s0 .git/index", "path-escape: truncate -s 0 /tmp/x", "path-escape: truncate --size=0 .agentic/config.json", "path-escape: truncate -r /etc/passwd log.txt"},
}

var chmodSpec = &toolSpec{
	names: []string{"chmod", "chown", "chgrp"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts: `
	-c|--changes
	-f|--silent|--quiet
	-v|--verbose
	--dereference
	-h|--no-dereference
	--from=OWNER
	--no-preserve-root
	--preserve-root
	--reference=FILE  read
	-R|--recursive
	-H
	-L
	-P
	# chmod -w FILE: a mode that starts with - reads like an option
	-r
	-w
	-x
	-X
	-s
	-t
	--help
	--version`,
	allow:  []string{"chmod +x scripts/run.sh", "chmod -R u+w sub", "chmod 644 a b", "chmod -w sub/f", "chmod -wx sub/f", "chmod --reference=go.mod sub/f"},
	refuse: []string{"path-escape: chmod +x .git/hooks/pre-commit", "path-escape: chmod 777 /etc/x", "path-escape: chmod -R u+w .agentic", "path-escape: chmod --reference=.env x", "path-escape: chmod -w .git/config"},
}

var mkdirSpec = &toolSpec{
	names: []string{"mkdir", "rmdir"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts:   "-m|--mode=MODE\n-p|--parents\n-v|--verbose\n-Z\n--context[=CTX]\n--ignore-fail-on-non-empty\n--help\n--version",
	allow:  []string{"mkdir -p build/out"},
	refuse: []string{"path-escape: mkdir -p .git/hooks/x", "path-escape: mkdir /tmp/x", "path-escape: rmdir .agentic/x"},
}

var rmSpec = &toolSpec{
	names: []string{"rm", "unlink", "shred"}, mode: gnu, abbrev: true, operands: []string{"write"},
	opts:  "-f|--force\n-i\n-I\n--interactive[=WHEN]\n--one-file-system\n--no-preserve-root\n--preserve-root[=all]\n-r|-R|--recursive\n-d|--dir\n-v|--verbose\n-u|--remove\n-z|--zero\n-n|--iterations=N\n-s|--size=N\n-x|--exact\n--random-source=FILE  read\n--help\n--version",
	allow: []string{"rm -f build/x", "rm --random-source=go.mod -f build/x"},
	// rm is denied in the examples' settings; the writes are checked when it is allowed.
	refuse: []string{"path-escape: rm --random-source=/etc/passwd -f build/x"},
}
