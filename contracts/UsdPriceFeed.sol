// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

/// @title UsdPriceFeed
/// @notice A USD price feed with the Chainlink AggregatorV3 read interface (`decimals`, `description`,
/// `latestRoundData`), which the gateway reads for the native currency's USD price. The devnet deploys
/// one per chain at a realistic price; its owner moves the answer (production chains have real feeds).
contract UsdPriceFeed {
    address public immutable owner;
    uint8 public constant decimals = 8;
    string public description;
    uint80 private _round;
    int256 private _answer;
    uint256 private _updatedAt;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NotOwner();

    constructor(string memory description_, int256 answer) {
        owner = msg.sender;
        description = description_;
        _set(answer);
    }

    function setAnswer(int256 answer) external {
        if (msg.sender != owner) revert NotOwner();
        _set(answer);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return (_round, _answer, _updatedAt, _updatedAt, _round);
    }

    function _set(int256 answer) private {
        _round += 1;
        _answer = answer;
        _updatedAt = block.timestamp;
        emit AnswerUpdated(answer, _round, block.timestamp);
    }
}
