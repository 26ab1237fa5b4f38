// gemini at its pinned version, end to end (the scenarios are in scenarios.ts).
import { agentSuite } from './scenarios.js';

agentSuite('gemini');
