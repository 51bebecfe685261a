// gantryctl's split of a multi-document file (console/yaml_documents.hpp).
#include "console/yaml_documents.hpp"

#include <gtest/gtest.h>

namespace gantry::console {
namespace {

using Documents = std::vector<std::string>;

TEST(YamlDocuments, ASingleDocumentIsSentUnchanged) {
  EXPECT_EQ(split_yaml_documents("kind: Job\n"), Documents{"kind: Job\n"});
  EXPECT_EQ(split_yaml_documents("---\nkind: Job\n---\n# done\n"),
            Documents{"---\nkind: Job\n---\n# done\n"});
  EXPECT_EQ(split_yaml_documents(""), Documents{""});
}

TEST(YamlDocuments, SeveralDocumentsAreSplitAndEmptyOnesDropped) {
  EXPECT_EQ(split_yaml_documents("a: 1\n---\nb: 2\n--- \n# nothing\n---\nc: 3"),
            (Documents{"a: 1\n", "---\nb: 2\n", "---\nc: 3"}));
  EXPECT_EQ(split_yaml_documents("--- {a: 1}\n--- {b: 2}\n"),
            (Documents{"--- {a: 1}\n", "--- {b: 2}\n"}));
  EXPECT_EQ(split_yaml_documents("a: 1\n...\nb: 2\n"), (Documents{"a: 1\n...\n", "b: 2\n"}));
}

TEST(YamlDocuments, OnlyMarkersAtTheStartOfALineSplit) {
  const std::string one = "args: [\"---\"]\nscript: |\n  ---\n  echo\nname: a---b\n";
  EXPECT_EQ(split_yaml_documents(one), Documents{one});
  EXPECT_EQ(split_yaml_documents("a: 1\n----\n"), Documents{"a: 1\n----\n"});
}

TEST(YamlDocuments, DirectivesTravelWithTheirDocument) {
  EXPECT_EQ(split_yaml_documents("a: 1\n---\n%YAML 1.2\n---\nb: 2\n"),
            (Documents{"a: 1\n", "---\n%YAML 1.2\n---\nb: 2\n"}));
}

}  // namespace
}  // namespace gantry::console
