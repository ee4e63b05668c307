package policy

import (
	"strings"
	"sync"
)

// The build, package and transfer tools, as declarative rules like the
// others: make, go, npm/pnpm/yarn/bun, rsync, zip/unzip, scp/sftp, emacs,
// patch. Each fails closed on an option it does not know. What they run
// from files the agent writes (a Makefile, package.json scripts, tests,
// //go:generate lines) is the program itself, which the policy cannot
// read: the OS sandbox contains it.

var makeSpec = &toolSpec{
	names: []string{"make", "gmake"}, mode: gnu, abbrev: true, operands: []string{"arg"}, hook: "make",
	opts: `
	-b|-m
	-B|--always-make
	-C|--directory=DIR  chdir
	-d
	--debug[=FLAGS]
	-e|--environment-overrides
	-E|--eval=STRING  script  make evaluates the text as makefile rules, whose recipes run commands
	-f|--file|--makefile=FILE  check:programfile
	-h|--help
	-i|--ignore-errors
	-I|--include-dir=DIR  read
	-j|--jobs[=N]
	--jobserver-auth=X
	--jobserver-style=X
	-k|--keep-going
	-l|--load-average|--max-load[=N]
	-L|--check-symlink-times
	-n|--just-print|--dry-run|--recon
	-o|--old-file|--assume-old=FILE
	-O|--output-sync[=TYPE]
	-p|--print-data-base
	-q|--question
	-r|--no-builtin-rules
	-R|--no-builtin-variables
	--shuffle[=MODE]
	-s|--silent|--quiet
	--no-silent
	-S|--no-keep-going|--stop
	-t|--touch
	--trace
	-v|--version
	-w|--print-directory
	--no-print-directory
	-W|--what-if|--new-file|--assume-new=FILE
	--warn-undefined-variables`,
	allow: []string{"make", "make test", "make -j4 build", "make -C sub test", "make -f build.mk all", "make -s -k test", "make --jobs=8", "make CFLAGS=-O2 test", "make -n", "make -I inc test"},
	refuse: []string{"path-escape: make -C /tmp", "path-escape: make --dir=/tmp test", "path-escape: make -C .git", "nested-command: make --eval='x:;id'", "nested-command: make --ev='x:;id'", "nested-command: make -E 'x:;id'", "path-escape: make -f .env", "nested-command: make -f - x", "nested-command: make --file=/dev/stdin", "nested-command: make -f /dev/fd/0",
		"denied-pattern: make SHELL=./evil", "denied-pattern: make .SHELLFLAGS=-c", "denied-pattern: make MAKESHELL=/bin/rm", "denied-pattern: make LD_PRELOAD=x.so", "denied-pattern: make --bogus", "denied-pattern: make -Z", "path-escape: make -I /tmp test"},
	why: "runs the recipes of the makefile it reads",
}

// goSpec reads go's own flags (-C first) and hands the subcommand to its
// table (goSub).
var goSpec = &toolSpec{
	names: []string{"go"}, mode: goFlags, stopAtOperand: true, operands: []string{"arg"}, hook: "go",
	opts: "--C=DIR  chdir\n--h|--help",
	allow: []string{"go test ./...", "go build", "go build -o bin/app ./cmd/app", "go vet ./...", "go test -race -run TestX -count=1 ./pkg/...", "go test ./... -run TestX -v", "go test -coverprofile=c.out ./...", "go mod tidy", "go mod download",
		"go env GOPATH", "go version", "go list -m all", "go fmt ./...", "go test -bench . -benchtime 100x -run XXX", "go build -ldflags='-s -w' .", "go build -gcflags='all=-N -l' .", "go build -ldflags='-s -w -X main.version=1.2'", "go test -gcflags=-m ./...", "go run ./cmd/x -flag v", "go test -v=true ./...", "go -C sub test", "go get example.com/m@v1", "go test ./... -args -update", "go doc fmt", "go clean -testcache", "go help build", "go build -tags integration ./...", "go test -json ./...", "go test -blockprofile=b.out ./...", "go test -fuzzcachedir=fz ./...", "go test -gocoverdir=cov ./...", "go test -memprofile=m.out ./...", "go build -modfile=go.mod .", "go test -mutexprofile=mx.out ./...", "go build -pgo=default.pgo .", "go build -pkgdir=pk .", "go list -reuse=go.mod ./...", "go test -testlogfile=t.log ./...", "go test -trace=t.out ./...", "go test -cpuprofile=c.out ./...", "go test -outputdir=sub ./...", "go build -asmflags=-trimpath=x .", "go build -compiler=gc .", "go mod vendor -o vend"},
	refuse: []string{"denied-pattern: go test -exec ./evil ./...", "denied-pattern: go test -exec=./evil", "denied-pattern: go build -toolexec=./evil .", "denied-pattern: go build --toolexec ./evil", "denied-pattern: go vet -vettool=./evil ./...", "denied-pattern: go build -ldflags=-extld=./evil .", "denied-pattern: go build '-ldflags=-extldflags=-B/tmp' .", "denied-pattern: go build -compiler=gccgo .", "denied-pattern: go build -gccgoflags=-B/tmp .", "denied-pattern: go build -gcflags=-cpuprofile=/tmp/x .", "denied-pattern: go build '-gcflags=all=-importcfg x' .", "denied-pattern: go build '-ldflags=-s -o /tmp/x' .", "denied-pattern: go test -asmflags=-trace=x ./...", "path-escape: go build -pgo=.env .",
		"path-escape: go build -o /tmp/x .", "path-escape: go build -o=.git/hooks/pre-commit .", "path-escape: go test -coverprofile=/tmp/c", "path-escape: go test -test.cpuprofile .agentic/x", "path-escape: go test -outputdir /tmp", "path-escape: go -C /tmp build", "path-escape: go -C .. build", "path-escape: go mod vendor -o /tmp/v", "path-escape: go build -modfile=.env .",
		"denied-pattern: go env -w GOFLAGS=-toolexec=x", "denied-pattern: go env -u GOFLAGS", "nested-command: go generate ./...", "nested-command: go tool ./evil", "denied-pattern: go install ./...", "denied-pattern: go bug", "denied-pattern: go build -bogus .", "nested-command: go frobnicate", "denied-pattern: go test -run X -bogus", "path-escape: go test -blockprofile=/tmp/x ./...", "denied-pattern: go run -exec=./evil .", "path-escape: go test -fuzzcachedir=/tmp/x ./...", "path-escape: go test -gocoverdir=/tmp/x ./...", "path-escape: go test -memprofile=/tmp/x ./...", "path-escape: go build -modfile=/etc/passwd .", "path-escape: go test -mutexprofile=/tmp/x ./...", "path-escape: go build -pgo=/etc/passwd .", "path-escape: go build -pkgdir=/tmp/x .", "path-escape: go list -reuse=/etc/passwd ./...", "path-escape: go test -testlogfile=/tmp/x ./...", "path-escape: go test -trace=/tmp/x ./...", "denied-pattern: go build -overlay=o.json ."},
	why: "builds and runs Go code; -exec, -toolexec, -vettool and linker flags name programs",
}

// goBuild are the build flags every building subcommand shares.
const goBuild = `
	--C=DIR  chdir
	--a
	--n
	--p=N
	--race
	--msan
	--asan
	--cover
	--covermode=M
	--coverpkg=P
	--v
	--work
	--x
	--asmflags=F  check:gotoolflags
	--buildmode=M
	--buildvcs=X
	--compiler=NAME  check:gocompiler
	--gccgoflags=F  refuse  gccgo's flags can name the programs it runs; build with gc
	--gcflags=F  check:gotoolflags
	--installsuffix=S
	--ldflags=F  check:gotoolflags
	--linkshared
	--mod=M
	--modcacherw
	--modfile=FILE  read
	--overlay=FILE  names  an overlay file maps source files to any other files, which go then reads
	--pgo=FILE  read
	--pkgdir=DIR  wdir
	--tags=T
	--trimpath
	--toolexec=PROG  run  it runs every compiler and linker step through a program
	--json
	--o=FILE  write`

// goTest are go test's own flags and the test binary's, in both
// spellings (-run and -test.run).
var goTest = sync.OnceValue(func() string {
	var b strings.Builder
	for _, l := range strings.Split(`
	bench=R
	benchmem
	benchtime=T
	blockprofile=FILE  write
	blockprofilerate=N
	count=N
	coverprofile=FILE  write
	cpu=L
	cpuprofile=FILE  write
	failfast
	fullpath
	fuzz=R
	fuzzcachedir=DIR  wdir
	fuzzminimizetime=T
	fuzztime=T
	gocoverdir=DIR  wdir
	list=R
	memprofile=FILE  write
	memprofilerate=N
	mutexprofile=FILE  write
	mutexprofilefraction=N
	outputdir=DIR  wdir
	paniconexit0
	parallel=N
	run=R
	short
	shuffle=X
	skip=R
	testlogfile=FILE  write
	timeout=T
	trace=FILE  write
	v
	vet=LIST`, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		head, rest, _ := strings.Cut(l, " ")
		name, arg, _ := strings.Cut(head, "=")
		if arg != "" {
			arg = "=" + arg
		}
		alias := "--test." + name
		if name == "v" {
			alias = "--test.v" // -v is a build flag too: one line
		}
		if name == "v" {
			b.WriteString(alias + "  " + rest + "\n")
			continue
		}
		b.WriteString("--" + name + "|" + alias + arg + "  " + rest + "\n")
	}
	return b.String() + `
	--c
	--exec=PROG  run  it runs the test binary through a program
	--args  rest`
})

// goSubs are go's subcommands and their tables; "" means a refusal, a
// leading ! a runner.
var goSubs = map[string]string{
	"build":     goBuild,
	"install":   "!refuse:it writes the built programs outside the workspace (GOBIN or GOPATH/bin); build them with go build -o DIR",
	"run":       goBuild + "\n--exec=PROG  run  it runs the program through another program",
	"test":      "test",
	"vet":       goBuild + "\n--vettool=PROG  run  it runs another program as the analyzer",
	"list":      goBuild + "\n--m\n--u\n--versions\n--retracted\n--deps\n--test\n--e\n--f=FORMAT\n--compiled\n--export\n--find\n--reuse=FILE  read",
	"fmt":       "--n\n--x\n--mod=M",
	"get":       goBuild + "\n--d\n--t\n--u[=X]\n--insecure\n--fix",
	"clean":     goBuild + "\n--i\n--r\n--cache\n--testcache\n--modcache\n--fuzzcache",
	"doc":       "--all\n--c\n--cmd\n--short\n--src\n--u\n--http",
	"env":       "--json\n--changed\n--w  refuse  it changes go's configuration outside the workspace (GOFLAGS can hide a -toolexec); leave it to a human\n--u  refuse  it changes go's configuration outside the workspace; leave it to a human",
	"version":   "--m\n--v\n--json",
	"help":      "",
	"mod":       "mod",
	"work":      "work",
	"fix":       "--diff\n--fix=LIST\n--force=LIST\n--r=LIST",
	"generate":  "!script:it runs the commands written in //go:generate lines, which the policy cannot read",
	"tool":      "!script:it runs a tool program the policy cannot check",
	"bug":       "!refuse:it opens a web browser",
	"telemetry": "",
}

// goModSubs are go mod's and go work's actions.
var goModSubs = map[string]string{
	"mod download": "--json\n--x\n--reuse=FILE  read",
	"mod edit":     "--fmt\n--json\n--print\n--module=M\n--go=V\n--toolchain=V\n--require=P\n--droprequire=P\n--exclude=P\n--dropexclude=P\n--replace=P\n--dropreplace=P\n--retract=V\n--dropretract=V\n--tool=P\n--droptool=P\n--godebug=K\n--dropgodebug=K",
	"mod graph":    "--go=V\n--x",
	"mod init":     "",
	"mod tidy":     "--e\n--v\n--x\n--diff\n--go=V\n--compat=V",
	"mod vendor":   "--e\n--v\n--o=DIR  wdir",
	"mod verify":   "",
	"mod why":      "--m\n--vendor",
	"work init":    "",
	"work use":     "--r",
	"work edit":    "--fmt\n--json\n--print\n--go=V\n--toolchain=V\n--use=P\n--dropuse=P\n--replace=P\n--dropreplace=P\n--godebug=K\n--dropgodebug=K",
	"work sync":    "",
	"work vendor":  "--e\n--v\n--o=DIR  wdir",
}

var (
	goSpecsMu sync.Mutex
	goSpecs   = map[string]*toolSpec{}
)

// goSubSpec is the rule of one go subcommand ("mod tidy"), nil for none.
func goSubSpec(name, text string) *toolSpec {
	goSpecsMu.Lock()
	defer goSpecsMu.Unlock()
	if s, ok := goSpecs[name]; ok {
		return s
	}
	if text == "test" {
		text = goBuild + "\n" + goTest()
	}
	s := &toolSpec{names: []string{"go " + name}, mode: goFlags, operands: []string{"arg"}, opts: text + "\n--h|--help"}
	if name == "run" {
		s.stopAtOperand = true
	}
	s.table()
	goSpecs[name] = s
	return s
}

// goHook reads the subcommand and checks its flags with its table.
func goHook(c *checker, t *toolCall) {
	if len(t.operands) == 0 {
		return
	}
	sub := t.operands[0].text
	rest := t.operands[1:]
	text, ok := goSubs[sub]
	name := sub
	if text == "mod" || text == "work" {
		if len(rest) == 0 {
			return
		}
		name = sub + " " + rest[0].text
		text, ok = goModSubs[name]
		rest = rest[1:]
	}
	if !ok {
		c.refuse(NestedCommand, t.exe, "", "`go %s` is not a go subcommand aw's rule knows, so it is refused rather than guessed; use build, test, vet, run, mod, list, fmt, get, env, …", name)
		return
	}
	if kind, why, ok := strings.Cut(text, ":"); ok && strings.HasPrefix(kind, "!") {
		if kind == "!script" {
			c.scriptOption(t.exe, used{o: &optSpec{long: []string{name}}, as: name}, why)
			return
		}
		c.deniedArg(t.exe, name, why)
		return
	}
	c.runSpec(goSubSpec(name, text), "go "+name, rest, t.depth)
}

// pkgSpec is one table for the JavaScript package managers (npm, pnpm,
// yarn, bun): their common flags, each with what it does; a
// configuration key the table does not list is refused (npm takes any
// --key=value as configuration, and several keys name programs).
var pkgSpec = &toolSpec{
	names: []string{"npm", "pnpm", "yarn", "bun"}, mode: gnu, abbrev: true, negate: true, operands: []string{"arg"}, hook: "pkg",
	// exec and dlx hand the rest to the npx rule, whose options differ.
	stopWords: []string{"exec", "x", "dlx"},
	opts: `
	-g|--global  refuse  it installs or changes packages outside the workspace
	--location=WHERE  check:npmlocation
	-D|--save-dev|--dev
	-S|--save|--save-prod|--prod
	-O|--save-optional|--optional
	-E|--save-exact|--exact
	-B|--save-bundle
	--save-peer|--peer
	--no-save
	--production
	--omit=TYPE
	--include=TYPE
	--legacy-peer-deps
	--strict-peer-deps
	--prefer-dedupe
	--install-strategy=S
	--install-links
	-f|--force
	--dry-run
	--ignore-scripts
	--foreground-scripts
	--audit
	--fund
	--package-lock
	--package-lock-only
	--lockfile-version=N
	--frozen-lockfile
	--immutable
	--pure-lockfile
	--prefer-offline
	--offline
	--prefer-online
	--if-present
	--ignore-engines
	--engine-strict
	--depth=N
	-a|--all
	-l|--long
	-p|--parseable|--porcelain
	--json
	-s|--silent
	-q|--quiet
	--loglevel=L
	--verbose
	-d
	--color=WHEN
	--progress
	--unicode
	--timing
	-y|--yes
	-w|--workspace|--filter=NAME
	-ws|--workspaces|--recursive
	-r
	--include-workspace-root
	--workspace-root
	--registry=URL
	--scope=S
	--tag=T
	--access=A
	--otp=CODE
	--audit-level=L
	--fix
	--no-fund
	--watch
	--coverage
	--bail
	--ci
	--version|-v
	-h|--help|--usage
	-C|--prefix|--dir|--cwd=DIR  chdir
	--cache|--cache-folder|--cache-dir=DIR  wdir
	--userconfig|--globalconfig|--npmrc|--rc=FILE  script  a configuration file can name the shell and programs it runs
	--script-shell|--shell=SHELL  run  it names the shell scripts run in
	--node-options=OPTS  run  it passes options (a --require of any file) to every node it starts
	--editor|--browser|--viewer|--git|--node-gyp|--yarn-path=PROG  run  it names a program to run
	--init-module|--onload-script=FILE  script  it loads a JavaScript file
	--preid=ID
	--message=MSG
	--sign-git-tag
	--git-tag-version
	--allow-same-version
	--provenance
	--pack-destination=DIR  wdir`,
	allow: []string{"npm test", "npm run build", "npm run lint -- --fix", "npm ci", "npm install --save-dev eslint", "npm install", "npm i -D typescript", "npm ls --depth=0", "npm outdated", "npm audit", "npm run test -- --watch=false", "pnpm install --frozen-lockfile", "pnpm --filter web test", "yarn", "yarn test", "yarn add -D vitest", "bun install", "bun test", "npm --prefix sub test", "npm -w pkg run build", "npm pack --dry-run", "npm pack --pack-destination=dist", "npm --cache=.npm-cache ci", "npm install --location=project x"},
	refuse: []string{"denied-pattern: npm --script-shell=./evil test", "denied-pattern: npm --scr=./evil test", "denied-pattern: npm test --shell ./evil", "denied-pattern: npm --node-options=--require=./x.js test", "nested-command: npm --userconfig=./rc test", "denied-pattern: npm install -g x", "denied-pattern: npm --location=global i x", "path-escape: npm --prefix /tmp test", "path-escape: npm --cache=.git/c ci",
		"denied-executable: npm exec rm x", "denied-executable: npm x -- rm x", "nested-command: npm exec -c 'rm x'", "denied-executable: yarn exec rm x", "denied-executable: yarn dlx rm", "denied-executable: pnpm dlx rm", "denied-pattern: npm config set script-shell x", "denied-pattern: npm set script-shell x", "denied-pattern: npm link", "nested-command: npm init x", "nested-command: yarn create x", "denied-pattern: npm --bogus test", "denied-pattern: npm install --foo=bar", "denied-pattern: npm --editor=./evil test", "nested-command: npm --onload-script=x.js test", "path-escape: npm pack --pack-destination=/tmp/x"},
	why: "runs package.json scripts; configuration keys name the shell, node's options and other programs",
}

var rsyncSpec = &toolSpec{
	names: []string{"rsync"}, mode: gnu, abbrev: true, negate: true, operands: []string{"sources-write"}, hook: "rsync",
	opts: `
	-v|--verbose
	--info=FLAGS
	--debug=FLAGS
	--stderr=MODE
	-q|--quiet
	--no-motd
	-c|--checksum
	-a|--archive
	-r|--recursive
	-R|--relative
	--no-implied-dirs
	-b|--backup
	--backup-dir=DIR  wdir
	--suffix=SUFFIX  check:suffix
	-u|--update
	--inplace
	--append
	--append-verify
	-d|--dirs
	--old-dirs
	--mkpath
	-l|--links
	-L|--copy-links
	--copy-unsafe-links
	--safe-links
	--munge-links
	-k|--copy-dirlinks
	-K|--keep-dirlinks
	-H|--hard-links
	-p|--perms
	-E|--executability
	--chmod=CHMOD
	-A|--acls
	-X|--xattrs
	-o|--owner
	-g|--group
	--devices
	--copy-devices
	--write-devices
	--specials
	-D
	-t|--times
	-U|--atimes
	--open-noatime
	-N|--crtimes
	-O|--omit-dir-times
	-J|--omit-link-times
	--super
	--fake-super
	-S|--sparse
	--preallocate
	-n|--dry-run
	-W|--whole-file
	--checksum-choice|--cc=STR
	-x|--one-file-system
	-B|--block-size=SIZE
	-e|--rsh=COMMAND  run  it names the remote shell rsync runs
	--rsync-path=PROGRAM  run  it names the program rsync runs on the other side
	--existing
	--ignore-existing
	--remove-source-files
	--del
	--delete
	--delete-before
	--delete-during
	--delete-delay
	--delete-after
	--delete-excluded
	--ignore-missing-args
	--delete-missing-args
	--ignore-errors
	--force
	--max-delete=NUM
	--max-size=SIZE
	--min-size=SIZE
	--max-alloc=SIZE
	-P
	--partial
	--partial-dir=DIR  wdir
	--delay-updates
	-m|--prune-empty-dirs
	--numeric-ids
	--usermap=STRING
	--groupmap=STRING
	--chown=USER:GROUP
	--timeout=SECONDS
	--contimeout=SECONDS
	-I|--ignore-times
	--size-only
	-@|--modify-window=NUM
	-T|--temp-dir=DIR  wdir
	-y|--fuzzy
	--compare-dest=DIR  read
	--copy-dest=DIR  read
	--link-dest=DIR  read
	-z|--compress
	--compress-choice|--zc=STR
	--compress-level|--zl=NUM
	--skip-compress=LIST
	-C|--cvs-exclude
	-f|--filter=RULE  check:rsyncfilter
	-F
	--exclude=PATTERN
	--exclude-from=FILE  read
	--include=PATTERN
	--include-from=FILE  read
	--files-from=FILE  names  it reads the names of the files to transfer from the file
	-0|--from0
	-s|--secluded-args|--protect-args
	--old-args
	--trust-sender
	--copy-as=USER  refuse  it runs the copy as another user
	--address=ADDRESS
	--port=PORT
	--sockopts=OPTIONS
	--blocking-io
	--outbuf=N|L|B
	--stats
	-8|--8-bit-output
	-h|--human-readable
	--progress
	-i|--itemize-changes
	-M|--remote-option=OPTION  refuse  it passes options to the other rsync (a local copy's too), which the policy does not read
	--out-format=FORMAT
	--log-file=FILE  write
	--log-file-format=FMT
	--password-file=FILE  read
	--early-input=FILE  read
	--list-only
	--bwlimit=RATE
	--stop-after=MINS
	--stop-at=TIME
	--fsync
	--write-batch=FILE  write
	--only-write-batch=FILE  write
	--read-batch=FILE  refuse  a batch file writes the paths recorded in it, which the policy cannot see
	--protocol=NUM
	--iconv=SPEC
	--checksum-seed=NUM
	-4|--ipv4
	-6|--ipv6
	-V|--version
	--daemon  refuse  it starts an rsync server
	--config=FILE  script  an rsyncd.conf names programs to run
	--dparam=OVERRIDE  refuse  it overrides daemon settings
	--help`,
	allow:  []string{"rsync -a src/ dst/", "rsync -av --delete sub/ backup/", "rsync -az sub/ user@host:backup/", "rsync -a --exclude=node_modules sub/ dst/", "rsync -n -a sub/ dst/", "rsync -a host:src/ sub/", "rsync -a --backup-dir=bak -b sub/ dst/", "rsync -a --compare-dest=old sub/ dst/", "rsync -a --copy-dest=old sub/ dst/", "rsync --early-input=in.txt -a sub/ host:dst/", "rsync --exclude-from=ex.txt -a sub/ dst/", "rsync --include-from=in.txt -a sub/ dst/", "rsync -a --link-dest=old sub/ dst/", "rsync --only-write-batch=b.bin -a sub/ dst/", "rsync -a --partial-dir=part sub/ dst/", "rsync --password-file=pw.txt -a sub/ host::m", "rsync --write-batch=b.bin -a sub/ dst/", "rsync -a -T tmp sub/ dst/", "rsync -a --log-file=r.log sub/ dst/", "rsync -b --suffix=.bak -a sub/ dst/", "rsync -a --filter='- *.o' sub/ dst/"},
	refuse: []string{"denied-pattern: rsync -e ./evil a host:b", "denied-pattern: rsync -vrse ./evil a b", "denied-pattern: rsync --rsh=./evil a b", "denied-pattern: rsync --rs=./evil a b", "denied-pattern: rsync --rsync-path=./evil a host:b", "denied-pattern: rsync --rsync-p=x a b", "path-escape: rsync -a sub/ /tmp/x/", "path-escape: rsync -a sub/ .git/hooks/", "path-escape: rsync -a .env sub/", "path-escape: rsync -a /etc/shadow sub/", "path-escape: rsync --log-file=/tmp/l a b", "path-escape: rsync -a --remove-source-files .git/config sub/", "denied-pattern: rsync --read-batch=b sub/", "denied-pattern: rsync -M--log-file=/tmp/x a b", "denied-pattern: rsync -b --suffix=/../x a b", "path-escape: rsync --filter='merge .env' a b", "denied-pattern: rsync --files-from=- a b", "denied-pattern: rsync -a --files-from=list . b/", "denied-pattern: rsync --bogus a b", "path-escape: rsync -a --backup-dir=/tmp/b -b sub/ dst/", "path-escape: rsync -a --compare-dest=/etc sub/ dst/", "nested-command: rsync --config=r.conf -a sub/ dst/", "denied-pattern: rsync --copy-as=root -a sub/ dst/", "path-escape: rsync -a --copy-dest=/etc sub/ dst/", "denied-pattern: rsync --daemon", "denied-pattern: rsync --dparam=x=y -a sub/ dst/", "path-escape: rsync --early-input=/etc/passwd -a sub/ host:dst/", "path-escape: rsync --exclude-from=/etc/passwd -a sub/ dst/", "path-escape: rsync --include-from=/etc/passwd -a sub/ dst/", "path-escape: rsync -a --link-dest=/etc sub/ dst/", "path-escape: rsync --only-write-batch=/tmp/b -a sub/ dst/", "path-escape: rsync -a --partial-dir=/tmp/p sub/ dst/", "path-escape: rsync --password-file=/etc/passwd -a sub/ host::m", "path-escape: rsync --write-batch=/tmp/b -a sub/ dst/", "path-escape: rsync -a -T /tmp sub/ dst/"},
	why:    "copies files, and runs a remote shell (-e) and a remote program (--rsync-path)",
}

var zipSpec = &toolSpec{
	names: []string{"zip"}, mode: gnu, abbrev: true, numbers: true, operands: []string{"write", "read"}, hook: "zip",
	opts: `
	-r|--recurse-paths
	-R|--recurse-patterns
	-q|--quiet
	-v|--verbose
	-j|--junk-paths
	-J|--junk-sfx
	-m|--move
	-u|--update
	-f|--freshen
	-FS|--filesync
	-F|--fix
	-FF|--fixfix
	-d|--delete
	-U|--copy-entries
	-x|--exclude
	-i|--include
	-T|--test
	-TT|--unzip-command=CMD  run  it names the program zip runs to test the archive
	-O|--output-file=FILE  write
	-b|--temp-path=DIR  wdir
	-A|--adjust-sfx
	-@|--names-stdin  refuse  the names of the files come from stdin, which the policy cannot read; list them as arguments
	-e|--encrypt
	-P|--password=PW
	-c|--entry-comments
	-z|--archive-comment
	-l|--to-crlf
	-ll|--from-crlf
	-D|--no-dir-entries
	-X|--no-extra
	-y|--symlinks
	-S|--system-hidden
	-n|--suffixes=LIST
	-t|--from-date=DATE
	-tt|--before-date=DATE
	-g|--grow
	-h|--help
	-L|--license
	-o|--latest-time
	-k|--DOS-names
	-V|--VMS-portable
	-w|--VMS-versions
	-nw|--no-wild
	-s|--split-size=SIZE
	-sp|--split-pause
	-sb|--split-bell
	-sv|--split-verbose
	-sf|--show-files
	-so|--show-options
	-sc|--show-command
	-db|--display-bytes
	-dc|--display-counts
	-dd|--display-dots
	-dg|--display-globaldots
	-ds|--dot-size=SIZE
	-du|--display-usize
	-dv|--display-volume
	-MM|--must-match
	-ws|--wild-stop-dirs
	-Z|--compression-method=METHOD
	-lf|--logfile-path=FILE  write
	-la|--log-append
	-li|--log-info
	-AC|--archive-clear
	-AS|--archive-set
	-ic|--case-insensitive
	-UN|--unicode=MODE
	-$|--volume-label`,
	allow:  []string{"zip -r out.zip dir", "zip -q -r dist/app.zip sub", "zip -9 out.zip a b", "zip -r out.zip sub -x '*.o'", "zip -T out.zip", "zip -O new.zip out.zip", "zip -b sub out.zip f", "zip -lf zip.log out.zip f"},
	refuse: []string{"denied-pattern: zip -T -TT ./evil out.zip f", "denied-pattern: zip -TT./evil out.zip f", "denied-pattern: zip -qTT./evil out.zip f", "denied-pattern: zip --unzip-command=./evil out.zip f", "denied-pattern: zip --unzip-c=./evil out.zip f", "path-escape: zip /tmp/o.zip f", "path-escape: zip .git/x.zip f", "path-escape: zip -r out.zip .env", "path-escape: zip -O /tmp/x out.zip", "path-escape: zip -b /tmp out.zip f", "path-escape: zip -m out.zip .git/config", "denied-pattern: zip -@ out.zip", "denied-pattern: zip --bogus out.zip f", "path-escape: zip -lf /tmp/log out.zip f"},
}

// unzip (and bsdtar-like extractors below) write the member paths the
// archive holds, which the policy cannot see: only listing, testing and
// extracting to stdout run.
var unzipSpec = &toolSpec{
	names: []string{"unzip"}, mode: posix, operands: []string{"read"}, hook: "extract",
	opts: `
	-l
	-v
	-t
	-z
	-p
	-c
	-Z
	-q
	-qq
	-a
	-aa
	-b
	-C
	-L
	-M
	-n
	-j
	-o
	-x
	-d=DIR  wdir
	-P=PW
	-h`,
	allow:  []string{"unzip -l out.zip", "unzip -p out.zip README.md", "unzip -t out.zip", "unzip -l -d sub out.zip"},
	refuse: []string{"denied-pattern: unzip out.zip", "denied-pattern: unzip -o out.zip -d sub", "path-escape: unzip -l .env", "path-escape: unzip -d .git -o x.zip"},
}

// patch writes the files the patch names, which the policy cannot see:
// only --dry-run runs.
var patchSpec = &toolSpec{
	names: []string{"patch"}, mode: gnu, abbrev: true, operands: []string{"read"}, hook: "extract",
	opts: `
	-p|--strip=N
	-R|--reverse
	-N|--forward
	-i|--input=FILE  read
	-o|--output=FILE  write
	-d|--directory=DIR  chdir
	-r|--reject-file=FILE  write
	-b|--backup
	-B|--prefix=PREFIX  refuse  a backup prefix can name any directory
	-Y|--basename-prefix=PREFIX  refuse  a backup prefix can name any directory
	-z|--suffix=SUFFIX  check:suffix
	-V|--version-control=WAY
	-E|--remove-empty-files
	-l|--ignore-whitespace
	-s|--silent|--quiet
	-t|--batch
	-f|--force
	-u|--unified
	-c|--context
	-n|--normal
	-e|--ed  refuse  an ed script can run shell commands
	-F|--fuzz=N
	--binary
	--dry-run
	--merge[=STYLE]
	--posix
	--verbose
	--follow-symlinks
	--no-backup-if-mismatch
	--backup-if-mismatch
	--read-only=BEHAVIOR
	--reject-format=FORMAT
	--quoting-style=WORD
	-T|--set-time
	-Z|--set-utc
	-x|--debug=N
	-v|--version
	--help`,
	allow:  []string{"patch --dry-run -p1 -i fix.patch", "patch --dry-run -d sub -p1 -i fix.patch", "patch --dry-run -o out.txt -i fix.patch", "patch --dry-run -r rej.txt -i fix.patch", "patch --dry-run -b -z .orig -i fix.patch"},
	refuse: []string{"denied-pattern: patch -p1 -i fix.patch", "denied-pattern: patch -p0", "path-escape: patch --dry-run -i .env", "denied-pattern: patch --dry-run -e -i x", "denied-pattern: patch --dry-run -B /tmp/ -i fix.patch", "denied-pattern: patch --dry-run -Y x/ -i fix.patch", "path-escape: patch --dry-run -d /tmp -i fix.patch", "path-escape: patch --dry-run -o /tmp/x -i fix.patch", "path-escape: patch --dry-run -r .git/x -i fix.patch", "denied-pattern: patch --dry-run -b -z /x -i fix.patch"},
}

// emacs reads Lisp from its options and from the files it visits; only
// plain visiting (a human at a terminal) is left.
var emacsSpec = &toolSpec{
	names: []string{"emacs", "emacsclient"}, mode: gnu, abbrev: true, dashLong: true, plus: eCheck, operands: []string{"read"},
	opts: `
	--batch  script  batch mode evaluates what its options and the visited files' local variables hold, reading answers from stdin
	--chdir=DIR  chdir
	--daemon|--bg-daemon|--fg-daemon[=NAME]  refuse  it starts an editor server that runs what clients send
	--debug-init
	--display|-d=DISPLAY
	--dump-file=FILE  script  a dump file is code emacs loads
	--eval|--execute=EXPR  run  it evaluates Lisp, which can run any program
	--file|--find-file|--visit=FILE  read
	--funcall|-f=FUNCTION  run  it calls a Lisp function, which can run any program
	--init-directory=DIR  script  it loads the init file of that directory
	--insert=FILE  read
	--kill  run  it runs the exit hooks
	--load|-l=FILE  script  it loads a Lisp file
	--directory|-L=DIR  script  it adds a directory Lisp is loaded from
	--no-init-file|-q
	--no-site-file
	--no-site-lisp
	--no-splash
	--no-x-resources
	--no-desktop
	--no-window-system|--nw
	--quick|-Q
	--script|--scriptload=FILE  script  it runs a Lisp file
	-x  script  it runs a Lisp file
	--user|-u=USER  script  it loads another user's init file
	--terminal|-t=DEVICE  refuse  it opens another terminal
	--version
	--help`,
	allow:  []string{"emacs README.md", "emacs -nw README.md", "emacs -Q README.md", "emacs +12 README.md", "emacs --chdir=sub README.md", "emacs --file=README.md", "emacs --insert=go.mod README.md", "emacs --visit=README.md"},
	refuse: []string{"denied-pattern: emacs --eval '(shell-command \"id\")'", "denied-pattern: emacs -eval '(x)'", "denied-pattern: emacs --ev='(x)'", "nested-command: emacs -batch -l x.el", "nested-command: emacs -l x.el", "nested-command: emacs -load x.el", "denied-pattern: emacs -funcall x", "denied-pattern: emacs -f x", "nested-command: emacs --script x.el", "nested-command: emacs -script x.el", "path-escape: emacs .env", "denied-pattern: emacs --bogus f", "denied-pattern: emacs '+1:2' f", "denied-pattern: emacs --daemon", "nested-command: emacs --batch README.md", "path-escape: emacs --chdir=/tmp README.md", "nested-command: emacs -L lisp README.md", "nested-command: emacs --dump-file=x.pdmp", "path-escape: emacs --visit=/etc/passwd", "nested-command: emacs --init-directory=sub", "path-escape: emacs --insert=/etc/passwd README.md", "denied-pattern: emacs --kill", "denied-pattern: emacs -t /dev/tty2 README.md", "nested-command: emacs -u root README.md", "nested-command: emacs -x x.el"},
}

var scpSpec = &toolSpec{
	names: []string{"scp"}, mode: posix, operands: []string{"sources-write"},
	opts: `
	-3
	-4
	-6
	-A
	-B
	-C
	-O
	-p
	-q
	-R
	-r
	-s
	-T
	-v
	-c=CIPHER
	-D=PROGRAM  run  it runs a local program as the SFTP server
	-F=CONFIG  script  an ssh configuration file can run commands (ProxyCommand, LocalCommand, Match exec)
	-i=FILE  read
	-J=DEST  refuse  a jump host runs a further ssh with its own configuration; connect directly
	-l=LIMIT
	-o=OPTION  check:sshopt
	-P=PORT
	-S=PROGRAM  run  it names the program scp runs as ssh
	-X=OPTION`,
	allow:  []string{"scp sub/f.txt host:dir/", "scp -r host:dir sub/", "scp -P 2222 -o BatchMode=yes f host:", "scp -i key f host:"},
	refuse: []string{"denied-pattern: scp -S ./evil a host:b", "denied-pattern: scp -qS./evil a host:b", "denied-pattern: scp -D ./evil a host:b", "nested-command: scp -F cfg a host:b", "nested-command: scp -qFcfg a host:b", "denied-pattern: scp -o ProxyCommand=id a host:b", "denied-pattern: scp -oLocalCommand=id a host:b", "denied-pattern: scp -o 'Match exec id' a host:b", "denied-pattern: scp -o PKCS11Provider=./x.so a h:b", "path-escape: scp sub/f.txt .git/hooks/pre-commit", "path-escape: scp host:x /tmp/y", "path-escape: scp .env host:", "denied-pattern: scp -Z a b", "denied-pattern: scp -J jump a host:b", "path-escape: scp -i /etc/passwd a host:b"},
}

var sftpSpec = &toolSpec{
	names: []string{"sftp"}, mode: posix, operands: []string{"arg"},
	opts: `
	-4
	-6
	-A
	-a
	-C
	-f
	-N
	-p
	-q
	-r
	-v
	-B=SIZE
	-b=BATCHFILE  script  a batch file holds sftp commands (! runs a shell command)
	-c=CIPHER
	-D=PROGRAM  run  it runs a local program as the SFTP server
	-F=CONFIG  script  an ssh configuration file can run commands
	-i=FILE  read
	-J=DEST  refuse  a jump host runs a further ssh with its own configuration
	-l=LIMIT
	-o=OPTION  check:sshopt
	-P=PORT
	-R=N
	-S=PROGRAM  run  it names the program sftp runs as ssh
	-s=SUBSYSTEM  run  it names the program or subsystem to run`,
	allow:  []string{"sftp host", "sftp -i key host", "sftp -o BatchMode=yes host"},
	refuse: []string{"denied-pattern: sftp -S ./evil host", "nested-command: sftp -b cmds host", "denied-pattern: sftp -D ./evil", "denied-pattern: sftp -o ProxyCommand=id host", "nested-command: sftp -F cfg host", "denied-pattern: sftp -J jump host", "path-escape: sftp -i /etc/ssh/key host", "denied-pattern: sftp -s ./evil host"},
}

// sshSafeOptions are the -o keys that change neither which program runs
// nor which file is loaded or written.
var sshSafeOptions = setOf("port", "user", "batchmode", "connecttimeout", "connectionattempts", "stricthostkeychecking", "compression",
	"loglevel", "serveraliveinterval", "serveralivecountmax", "ciphers", "macs", "hostkeyalgorithms", "kexalgorithms",
	"pubkeyauthentication", "passwordauthentication", "preferredauthentications", "addressfamily", "hostname",
	"identitiesonly", "tcpkeepalive", "requesttty", "loglevel", "ipqos", "rekeylimit", "updatehostkeys", "hashknownhosts",
	"checkhostip", "verifyhostkeydns", "numberofpasswordprompts", "gssapiauthentication", "kbdinteractiveauthentication")

func init() {
	valueRules["sshopt"] = func(c *checker, exe string, u used) {
		kv := strings.TrimSpace(u.val.text)
		key, _, _ := strings.Cut(kv, "=")
		key, _, _ = strings.Cut(key, " ")
		if !sshSafeOptions[strings.ToLower(strings.TrimSpace(key))] {
			c.deniedArg(exe, "-o "+kv, "this ssh option is not one aw's rule knows to be harmless (ProxyCommand, LocalCommand, Match exec, PKCS11Provider and others run programs or load files); pass a known option such as Port, User, BatchMode or ConnectTimeout")
		}
	}
	valueRules["programfile"] = func(c *checker, exe string, u used) {
		// A program file on stdin (make -f - with a here-document) holds
		// commands the policy cannot read.
		v := u.val.text
		if v == "-" || strings.HasPrefix(v, "/dev/") || strings.HasPrefix(v, "/proc/") {
			c.scriptOption(exe, u, "it reads its rules, whose recipes run commands, from stdin")
			return
		}
		c.path(u.val, readAccess, exe, "file "+exe+" "+u.o.name()+" reads")
	}
	valueRules["gocompiler"] = func(c *checker, exe string, u used) {
		if u.val.text != "gc" {
			c.deniedArg(exe, u.as, "another compiler (gccgo) runs programs its flags name; build with gc")
		}
	}
	valueRules["gotoolflags"] = func(c *checker, exe string, u used) {
		// -gcflags, -asmflags and -ldflags pass flags to the compiler,
		// assembler and linker, several of which write files (-o,
		// -cpuprofile, -trace), read configuration naming any file
		// (-importcfg, -embedcfg) or pick programs (-extld): only flags
		// that change code generation or output details pass.
		for _, f := range strings.Fields(u.val.text) {
			if pkgs, flag, ok := strings.Cut(f, "="); ok && !strings.HasPrefix(pkgs, "-") {
				f = flag // all=-N, ./...=-m
			}
			name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
			if !strings.HasPrefix(f, "-") {
				continue // the value of the flag before it (-X main.v=1)
			}
			if !goToolFlags[name] {
				c.deniedArg(exe, u.as, "the flag -"+name+" is not one aw's rule knows to be harmless (compiler and linker flags such as -o, -cpuprofile, -trace, -importcfg, -embedcfg and -extld write files, read configuration naming any file or pick programs); use -N, -l, -m, -B, -s, -w, -X and the like")
				return
			}
		}
	}
	valueRules["suffix"] = func(c *checker, exe string, u used) {
		if strings.ContainsAny(u.val.text, "/*") || strings.Contains(u.val.text, "..") {
			c.deniedArg(exe, u.as, "a backup suffix with / or * names a file in another directory, which the policy does not check; use a plain suffix such as .bak")
		}
	}
	valueRules["npmlocation"] = func(c *checker, exe string, u used) {
		if u.val.text != "project" {
			c.deniedArg(exe, u.as, "it installs or changes packages outside the workspace")
		}
	}
	valueRules["rsyncfilter"] = func(c *checker, exe string, u used) {
		// merge and dir-merge rules (". FILE", ": FILE") read a file of rules.
		rule := strings.TrimSpace(u.val.text)
		for _, p := range []string{"merge", "dir-merge", ".", ":"} {
			if rest, ok := strings.CutPrefix(rule, p); ok && (rest == "" || rest[0] == ' ' || rest[0] == ',') {
				if f := strings.TrimSpace(strings.TrimLeft(rest, ",-+enwrCs")); f != "" {
					c.path(word{text: f}, readAccess, exe, "rule file "+exe+" reads")
				}
			}
		}
	}
}

// goToolFlags are compiler, assembler and linker flags that change only
// the code built or the diagnostics printed.
var goToolFlags = setOf("N", "l", "m", "B", "C", "S", "e", "h", "L", "race", "msan", "asan", "std", "complete", "dwarf", "dwarflocationlists",
	"spectre", "wb", "c", "lang", "nolocalimports", "smallframes", "live", "shared", "dynlink", "trimpath", "p", "goversion", "pack", "v",
	"s", "w", "X", "buildid", "compressdwarf", "checklinkname", "strictdups", "k", "f", "g", "linkmode", "buildmode", "debugtramp", "bindnow", "dumpdep", "funcalign", "stripfn", "E")

// makeHook reads make's VAR=value operands: the shell make runs recipes
// with is not the agent's to choose, a != assignment runs a command, and
// a value make expands can call $(shell …).
func makeHook(c *checker, t *toolCall) {
	for _, op := range t.operands {
		name, value, ok := strings.Cut(op.text, "=")
		if !ok {
			continue
		}
		bang := strings.HasSuffix(name, "!")
		name = strings.TrimSpace(strings.TrimRight(name, ":+?!"))
		switch {
		case bang:
			c.deniedArg(t.exe, op.text, "a != assignment runs a shell command")
		case name == "SHELL" || name == ".SHELLFLAGS" || name == "MAKESHELL":
			c.deniedArg(t.exe, op.text, "it changes the shell make runs its recipes with")
		case strings.ContainsAny(value, "$`"):
			c.deniedArg(t.exe, op.text, "make expands the value, and $(shell …) in it runs a command; pass a literal value")
		default:
			// make's variables are the makefile's (CFLAGS=-O2 is
			// ordinary); only the environment families that start or
			// load programs are refused.
			if _, ok := isAssignment(name + "="); ok && (matchVar(startupVars, name) || matchVar(lineOnlyVars, name)) {
				c.assign(name, t.exe)
			}
		}
		if c.refused {
			return
		}
	}
}

// pkgHook reads the package manager's subcommand.
func pkgHook(c *checker, t *toolCall) {
	ops := t.operands
	if len(ops) == 0 {
		return
	}
	sub, rest := ops[0].text, ops[1:]
	switch sub {
	case "exec", "x", "dlx":
		c.runSpec(npxSpec, t.exe+" "+sub, rest, t.depth)
	case "config", "c", "set":
		if sub == "set" || hasWord(rest, "set") || hasWord(rest, "edit") || hasWord(rest, "delete") || hasWord(rest, "fix") {
			c.deniedArg(t.exe, sub+" set", "it changes configuration outside the workspace (a script shell can hide there); leave it to a human")
		}
	case "link", "ln":
		c.deniedArg(t.exe, sub, "it links packages into the global prefix, outside the workspace")
	case "init", "create", "innit":
		for _, w := range rest {
			if !strings.HasPrefix(w.text, "-") {
				c.refuse(NestedCommand, t.exe, "", "`%s %s %s` downloads and runs the initializer package create-%s, which the policy cannot read; run `%s init -y` for a plain package.json", t.exe, sub, w.text, packageCommand(w.text), t.exe)
				return
			}
		}
	}
}

// rsyncHook: --remove-source-files deletes the sources.
func rsyncHook(c *checker, t *toolCall) {
	if !t.has("--remove-source-files") || len(t.operands) < 2 {
		return
	}
	for _, f := range t.operands[:len(t.operands)-1] {
		c.path(f, writeAccess, t.exe, "source "+t.exe+" --remove-source-files deletes")
	}
}

// zipHook: -m deletes the files it adds.
func zipHook(c *checker, t *toolCall) {
	if !t.has("--move") || len(t.operands) < 2 {
		return
	}
	for _, f := range t.operands[1:] {
		c.path(f, writeAccess, t.exe, "file "+t.exe+" -m deletes")
	}
}

// extractHook: unzip and patch write paths held inside a file (the
// archive's members, the patch's file names), which the policy cannot
// see; a member or a patched file can be .git/hooks/pre-commit.
func extractHook(c *checker, t *toolCall) {
	switch t.exe {
	case "unzip":
		if t.has("-l", "-v", "-t", "-p", "-c", "-z", "-Z") {
			return
		}
		c.refuse(DeniedPattern, t.exe, "", "`%s` extracting is refused by aw's built-in rules: extracting writes the archive's member paths, which the policy cannot see (a member can land in .git/ or .agentic/); list it with -l, extract one member to stdout with -p, or ask a human to extract it", t.exe)
	case "patch":
		if t.has("--dry-run") {
			return
		}
		c.refuse(DeniedPattern, t.exe, "", "`patch` is refused by aw's built-in rules: it writes the files the patch names, which the policy cannot see (one can be .git/hooks/pre-commit); apply changes with `aw edit`, or check the patch with --dry-run")
	}
}
