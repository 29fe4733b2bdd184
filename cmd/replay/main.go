// Command replay replays production LLM traffic against an OpenAI-compatible endpoint.
// This package only wires flags to the stages; each subcommand lives in its own file and
// registers itself with register.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"syscall"

	"github.com/spf13/pflag"
)

// cli is the streams a subcommand reads and writes. main passes the process's own; tests pass
// files or buffers and run a subcommand in-process. No subcommand reaches for os.Stdout itself.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand: its flags are defined by setup, run gets the parsed positional args.
type command struct {
	name    string
	summary string
	// usage is the one-line synopsis after "replay NAME".
	usage string
	// example is shown under --help, and exits (the exit codes) after it.
	example string
	exits   string
	// grouped: --help lists the flags under runFlagGroups' headings (the commands that take
	// run's flags), the command's own first.
	grouped bool
	setup   func(fs *pflag.FlagSet, std cli) func(ctx context.Context, args []string) error
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

// exitError carries a specific exit code out of a subcommand (e.g. a run that completed but
// exceeded --max-error-rate).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() { os.Exit(run(os.Args[1:], cli{os.Stdin, os.Stdout, os.Stderr})) }

// run runs the subcommand argv names with std's streams and returns its exit code.
func run(argv []string, std cli) int {
	if len(argv) == 0 || argv[0] == "-h" || argv[0] == "--help" || argv[0] == "help" {
		topUsage(std.stdout)
		if len(argv) == 0 {
			return 2
		}
		return 0
	}
	if argv[0] == "--version" || argv[0] == "version" {
		fmt.Fprint(std.stdout, versionText(debug.ReadBuildInfo()))
		return 0
	}
	c, ok := commands[argv[0]]
	if !ok {
		fmt.Fprintf(std.stderr, "replay: unknown command %q\n\n", argv[0])
		topUsage(std.stderr)
		return 2
	}
	fs := pflag.NewFlagSet("replay "+c.name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(std.stderr, "%s\n\nUsage:\n  replay %s %s\n", c.summary, c.name, c.usage)
		if c.grouped {
			groupedUsages(std.stderr, fs, c.name)
		} else {
			fmt.Fprintf(std.stderr, "\nFlags:\n%s", fs.FlagUsages())
		}
		if c.example != "" {
			fmt.Fprintf(std.stderr, "\nExample:\n%s\n", c.example)
		}
		if c.exits != "" {
			fmt.Fprintf(std.stderr, "\nExit codes:\n%s\n", c.exits)
		}
	}
	fs.SetOutput(std.stderr)
	runFn := c.setup(fs, std)
	if err := fs.Parse(argv[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(std.stderr, "replay %s: %v\n", c.name, err)
		return 2
	}
	if f := fs.Lookup("format"); f != nil && f.Value.String() == "help" { // --format help
		formatHelp(std.stdout)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runFn(ctx, fs.Args()); err != nil {
		err = flagNamed(err)
		fmt.Fprintf(std.stderr, "replay %s: %v\n", c.name, err)
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

func topUsage(w io.Writer) {
	fmt.Fprintln(w, "replay: replay production LLM traffic against an OpenAI-compatible endpoint, faithfully.")
	fmt.Fprintln(w, "\nUsage:\n  replay COMMAND [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'replay COMMAND --help' for a command's flags and an example; 'replay --version' for the build.")
}
