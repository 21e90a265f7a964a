import { loadTemplate } from '../../template';

export const templates = {
  simplify: loadTemplate('dr-chain.simplify'),
  generate: loadTemplate('dr-chain.generate'),
  explain: loadTemplate('dr-chain.explain'),
  revise: loadTemplate('dr-chain.revise'),
};
