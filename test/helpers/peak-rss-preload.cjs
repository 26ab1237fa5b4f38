// `node -r test/helpers/peak-rss-preload.cjs …`: writes `peak-rss-kb N` on stderr as the process
// exits, N its own peak RSS (test/helpers/peak-rss.cjs), worker threads included.
'use strict';
const { writeSync } = require('node:fs');
const { ownPeakRssKb } = require('./peak-rss.cjs');

process.on('exit', () => writeSync(2, `\npeak-rss-kb ${ownPeakRssKb()}\n`));
