// Preloaded (--import) by bench/ab.ts into each tree's benchmark: prints the process's CPU time at exit.
process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  process.stdout.write(`CPU_AT_EXIT ${user} ${system}\n`);
});
